// Hands a request to the SDK's web-standard MCP transport and writes its
// answer to Node's response: a call whose event stream would carry nothing
// but its answer goes out as one plain JSON body.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { QuietAnswer, QuietCalls } from './quiet-calls.js';

/**
 * How long a call may run before its answer is committed to an event stream
 * (headers sent at once): past it a client waiting for headers learns the
 * call is alive, and a long call is one whose few bytes of SSE cost nothing.
 */
export const SSE_COMMIT_MS = 1000;

/** The SDK's comment on an event stream that has said nothing for this long (its DEFAULT_SSE_KEEP_ALIVE_MS). */
const SSE_KEEP_ALIVE_MS = 15_000;

/** An event stream's headers, as the SDK's transport sends them. */
const STREAM_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no' };

/** Headers of an event stream that mean nothing on a plain JSON body. */
const STREAM_ONLY = new Set(['content-type', 'cache-control', 'connection', 'x-accel-buffering']);

const DATA = Buffer.from('data: ');
const NOTIFICATION_OR_REQUEST = Buffer.from('{"method":');

/**
 * The SDK answers every POST carrying a request with an event stream, and
 * its JSON mode (one flag per transport) drops the progress notifications a
 * call sends. The choice is made here per call instead, after the fact: the
 * stream's first event is held back; if the stream then ends, that event was
 * the answer and is sent as application/json (the SDK client parses one JSON
 * body instead of piping SSE through its parsers). If a notification comes
 * first, or the call outlives streamAfterMs (SSE_COMMIT_MS), the stream is sent as it is.
 * Both forms are what the Streamable HTTP spec lets a server answer with,
 * and every client must accept both. A request that gave no progress token
 * (`quiet`) skips the stream altogether (answerQuietly).
 */
export async function handleMcpRequest(
  transport: WebStandardStreamableHTTPServerTransport,
  req: IncomingMessage,
  res: ServerResponse,
  parsedBody?: unknown,
  streamAfterMs = SSE_COMMIT_MS,
  quiet?: QuietCalls,
): Promise<void> {
  // What the SDK would refuse anyway, refused before a Web Request is built (TRACE cannot be one).
  if (req.method !== 'POST' && req.method !== 'GET' && req.method !== 'DELETE') {
    res.writeHead(405, { allow: 'GET, POST, DELETE', 'content-type': 'application/json' });
    return void res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null }));
  }
  if (req.method === 'POST' && quiet?.quiet(parsedBody)) return answerQuietly(quiet, parsedBody.id, transport, req, res, parsedBody, streamAfterMs);
  const response = await transport.handleRequest(webRequest(req), parsedBody === undefined ? undefined : { parsedBody });
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  if (response.body === null) {
    res.writeHead(response.status, headers);
    return void res.end();
  }
  if (headers['content-type'] !== 'text/event-stream') {
    const body = Buffer.from(await response.arrayBuffer());
    res.writeHead(response.status, { ...headers, 'content-length': String(body.length) });
    return void res.end(body);
  }
  const reader = response.body.getReader();
  // A client gone mid-stream cancels it, as the SDK expects: the call's late answer then has nowhere to go.
  res.once('close', () => void reader.cancel().catch(() => undefined));
  const commit = () => {
    if (res.headersSent) return;
    res.writeHead(response.status, headers);
    res.flushHeaders();
  };
  try {
    // Only a POST's stream ends with its answer; a GET's stream stays open for server messages.
    if (req.method === 'POST') {
      const timer = setTimeout(commit, streamAfterMs);
      const first = await reader.read();
      clearTimeout(timer);
      if (first.done) return void (commit(), res.end());
      const answer = res.headersSent ? undefined : answerOf(first.value);
      const next = answer ? await reader.read() : undefined;
      if (answer && next?.done && !res.headersSent) {
        const json: Record<string, string> = { 'content-type': 'application/json', 'content-length': String(answer.length) };
        for (const [name, value] of Object.entries(headers)) if (!STREAM_ONLY.has(name)) json[name] = value;
        res.writeHead(response.status, json);
        return void res.end(answer);
      }
      commit();
      res.write(first.value);
      if (next?.done) return void res.end();
      if (next) res.write(next.value);
    } else {
      commit();
    }
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) return void res.end();
      res.write(chunk.value);
    }
  } catch {
    // The stream was cancelled or failed: the client is gone or the session closed.
    res.destroy();
  }
}

/**
 * A request that asked for no progress (QuietCalls): the SDK builds no event
 * stream for it and hands its answer over as one JSON body. What the client
 * sees is what handleMcpRequest makes of a stream: the answer as JSON when it
 * comes within streamAfterMs; past it, the stream's headers at once (and its
 * keep-alive comments), then the answer as its one event; a transport closed
 * first ends the stream with nothing in it.
 */
async function answerQuietly(
  quiet: QuietCalls,
  id: RequestId,
  transport: WebStandardStreamableHTTPServerTransport,
  req: IncomingMessage,
  res: ServerResponse,
  parsedBody: unknown,
  streamAfterMs: number,
): Promise<void> {
  const session = transport.sessionId === undefined ? {} : { 'mcp-session-id': transport.sessionId };
  let keepAlive: NodeJS.Timeout | undefined;
  const commit = setTimeout(() => {
    if (res.headersSent || res.destroyed) return;
    res.writeHead(200, { ...STREAM_HEADERS, ...session });
    res.flushHeaders();
    keepAlive = setInterval(() => res.write(': keepalive\n\n'), SSE_KEEP_ALIVE_MS);
  }, streamAfterMs);
  let answer: QuietAnswer;
  try {
    answer = await quiet.take(id, () => transport.handleRequest(webRequest(req), { parsedBody }));
  } finally {
    clearTimeout(commit);
    clearInterval(keepAlive);
  }
  // A client gone meanwhile has nothing to hear (on a stream, the SDK would have dropped the answer).
  if (res.destroyed) return;
  if (answer !== undefined && 'response' in answer) return writeResponse(res, answer.response);
  const json = answer === undefined ? undefined : JSON.stringify(answer.message);
  if (res.headersSent) {
    // Committed to a stream: the answer is its one event, as the SDK writes it.
    return void res.end(json === undefined ? undefined : `event: message\ndata: ${json}\n\n`);
  }
  if (json === undefined) {
    res.writeHead(200, { ...STREAM_HEADERS, ...session });
    return void res.end();
  }
  // A string body goes out with the headers in one write.
  res.writeHead(200, { 'content-type': 'application/json', ...session, 'content-length': String(Buffer.byteLength(json)) });
  res.end(json);
}

/** A Response of the SDK that is no event stream (a refusal, a 202), as it is. */
async function writeResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  if (res.headersSent) return void res.end();
  if (response.body === null) {
    res.writeHead(response.status, headers);
    return void res.end();
  }
  const body = Buffer.from(await response.arrayBuffer());
  res.writeHead(response.status, { ...headers, 'content-length': String(body.length) });
  res.end(body);
}

/**
 * The JSON of one SSE event (`event: message`, maybe `id:`, `data: <json>`)
 * when it is an answer; a notification or request (its first key is method,
 * as the SDK builds them) is undefined.
 */
function answerOf(chunk: Uint8Array): Buffer | undefined {
  const event = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  const at = event.indexOf(DATA);
  if (at < 0) return undefined;
  const start = at + DATA.length;
  if (event.subarray(start, start + NOTIFICATION_OR_REQUEST.length).equals(NOTIFICATION_OR_REQUEST)) return undefined;
  // One data line (JSON.stringify writes no raw newline), then the blank line that ends the event.
  const end = event.length - 2;
  if (end < start || event[end] !== 0x0a || event[end + 1] !== 0x0a) return undefined;
  return event.subarray(start, end);
}

/**
 * The part of a Web Request the SDK's transport reads (method, url, and
 * headers.get/entries; a POST's body is passed to it already parsed), over
 * Node's own parsed headers. undici's Request and Headers validate and copy
 * every header again, which cost a ping more than the rest of the transport.
 */
function webRequest(req: IncomingMessage): Request {
  const value = (name: string): string | null => {
    const v = req.headers[name.toLowerCase()];
    return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
  };
  const headers = {
    get: value,
    has: (name: string) => value(name) !== null,
    *entries(): IterableIterator<[string, string]> {
      for (const name of Object.keys(req.headers)) yield [name, value(name)!];
    },
  };
  return { method: req.method, url: `http://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`, headers } as unknown as Request;
}
