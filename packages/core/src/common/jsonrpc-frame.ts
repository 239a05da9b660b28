import { ErrorCode, JSONRPCMessageSchema, type JSONRPCErrorResponse, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';

/**
 * Judges one incoming frame (an HTTP body or a stdio line) before the MCP SDK
 * sees it. The SDK answers valid JSON that is no JSON-RPC message with -32700
 * over HTTP and with nothing at all over stdio; JSON-RPC 2.0 says -32600
 * Invalid Request, with the request's id when one can be read and null
 * otherwise. Both transports judge here, so both answer alike.
 */
export type FrameVerdict =
  /** Hand these to the SDK. */
  | { kind: 'messages'; messages: JSONRPCMessage[] }
  /** Answer with this error instead. */
  | { kind: 'error'; error: JSONRPCErrorResponse }
  /** A malformed notification: JSON-RPC forbids answering a notification, so drop it. */
  | { kind: 'drop'; reason: string };

/** Frames that may hold a batch: HTTP may (the SDK runs them, for 2025-03-26 clients); stdio carries one message per line. */
export interface FrameOptions {
  batches: boolean;
}

/** One stdio line: JSON.parse, then judgeFrame. */
export function judgeLine(line: string): FrameVerdict {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return { kind: 'error', error: parseError() };
  }
  return judgeFrame(value, { batches: false });
}

export function judgeFrame(value: unknown, options: FrameOptions): FrameVerdict {
  if (!Array.isArray(value)) {
    const verdict = judgeMessage(value);
    return verdict.kind === 'message' ? { kind: 'messages', messages: [verdict.message] } : verdict;
  }
  if (!options.batches) {
    return invalidRequest(null, 'one JSON-RPC message per line; batches are not supported here (MCP dropped them in 2025-06-18)');
  }
  if (value.length === 0) return invalidRequest(null, 'an empty batch');
  const messages: JSONRPCMessage[] = [];
  for (const [index, item] of value.entries()) {
    const verdict = judgeMessage(item);
    if (verdict.kind === 'message') {
      messages.push(verdict.message);
      continue;
    }
    // Running the rest would leave this one unanswered or answered out of band: refuse the whole batch.
    const reason = verdict.kind === 'error' ? stripPrefix(verdict.error.error.message) : verdict.reason;
    return invalidRequest(null, `batch element ${index}: ${reason}; nothing in the batch was run`);
  }
  return { kind: 'messages', messages };
}

export function parseError(): JSONRPCErrorResponse {
  return errorResponse(null, ErrorCode.ParseError, 'Parse error: not JSON; send one JSON-RPC message as a JSON object');
}

/** A JSON-RPC error response; id null when the request's id could not be read. */
export function errorResponse(id: RequestId | null, code: number, message: string): JSONRPCErrorResponse {
  // The SDK's type leaves id optional for this case; JSON-RPC wants it present and null.
  return { jsonrpc: '2.0', id: id as RequestId, error: { code, message } };
}

type MessageVerdict = { kind: 'message'; message: JSONRPCMessage } | Exclude<FrameVerdict, { kind: 'messages' }>;

function judgeMessage(value: unknown): MessageVerdict {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return invalidRequest(null, `a JSON-RPC message is an object, not ${describe(value)}`);
  }
  const frame = value as Record<string, unknown>;
  const id = readableId(frame.id);
  if (frame.jsonrpc !== '2.0') return invalidRequest(id, 'not a JSON-RPC 2.0 message: "jsonrpc" must be "2.0"');
  if ('id' in frame && id === null) return invalidRequest(null, 'id must be a string or an integer');
  if ('method' in frame) {
    if (typeof frame.method !== 'string') return invalidRequest(id, 'method must be a string');
    if (frame.params !== undefined && (typeof frame.params !== 'object' || frame.params === null || Array.isArray(frame.params))) {
      const reason = `${frame.method} takes params as an object of named parameters, not ${describe(frame.params)}`;
      return id === null ? { kind: 'drop', reason } : { kind: 'error', error: errorResponse(id, ErrorCode.InvalidParams, reason) };
    }
  } else if (!('result' in frame) && !('error' in frame)) {
    return invalidRequest(id, 'no "method" (a request or notification) and no "result" or "error" (a response)');
  }
  if (takenAsItIs(frame)) return { kind: 'message', message: frame as unknown as JSONRPCMessage };
  const parsed = JSONRPCMessageSchema.safeParse(value);
  if (parsed.success) return { kind: 'message', message: parsed.data };
  const extra = Object.keys(frame).filter((key) => !KNOWN_MEMBERS.has(key));
  const reason = extra.length > 0 ? `unexpected member${extra.length > 1 ? 's' : ''} ${extra.map((k) => JSON.stringify(k)).join(', ')}` : 'not a well-formed request, notification or response';
  return 'method' in frame && id === null ? { kind: 'drop', reason } : invalidRequest(id, reason);
}

const KNOWN_MEMBERS = new Set(['jsonrpc', 'id', 'method', 'params', 'result', 'error']);
const CALL_MEMBERS = new Set(['jsonrpc', 'id', 'method', 'params']);

/**
 * Whether a frame that passed the checks above (jsonrpc "2.0", a readable id
 * if any, a string method, params an object if any) is a request or
 * notification JSONRPCMessageSchema takes as it is: no member but those, an
 * id the schema's int() takes (a safe integer), and params without _meta
 * (otherwise any object). Such a frame, as nearly every call is, skips a zod
 * pass here that the SDK's transport makes again on the same body (about 1.5%
 * of the host's main thread per terminal_run, bench figure 4);
 * jsonrpc-frame.test.ts holds the verdicts to the schema's.
 */
function takenAsItIs(frame: Record<string, unknown>): boolean {
  if (!('method' in frame)) return false;
  if (typeof frame.id === 'number' && !Number.isSafeInteger(frame.id)) return false;
  for (const key of Object.keys(frame)) if (!CALL_MEMBERS.has(key)) return false;
  const params = frame.params as Record<string, unknown> | undefined;
  return params === undefined || !('_meta' in params);
}

function readableId(id: unknown): RequestId | null {
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : null;
}

function invalidRequest(id: RequestId | null, reason: string): { kind: 'error'; error: JSONRPCErrorResponse } {
  return { kind: 'error', error: errorResponse(id, ErrorCode.InvalidRequest, `Invalid Request: ${reason}`) };
}

function stripPrefix(message: string): string {
  return message.replace(/^Invalid Request: /, '');
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
