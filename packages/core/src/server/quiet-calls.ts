// Answers an MCP request that asked for no progress as one JSON body, without the SDK building an event stream for it.
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';

/**
 * The SDK transport's private state this module reaches into (SDK 1.x): its
 * JSON mode flag, read when a POST is taken, and its maps from a request to
 * the stream (or JSON promise) its answer goes to.
 */
interface TransportInternals {
  _enableJsonResponse: boolean;
  _requestToStreamMapping: Map<RequestId, string>;
  _streamMapping: Map<string, unknown>;
}

/** What a quiet call ends with: the SDK's own Response (a refusal before the call ran), the answer, or nothing (the transport closed). */
export type QuietAnswer = { response: Response } | { message: JSONRPCMessage } | undefined;

/**
 * Per call, the SDK's transport builds a web ReadableStream, a TextEncoder,
 * a keep-alive timer and a Response, and the endpoint read that stream back
 * to send the answer as one JSON body (mcp-response.ts); in its JSON mode
 * (one flag per transport) the notifications a call sends (progress) are
 * dropped, and it keeps an entry per answered request for the transport's
 * life. A request that gave no progress token gets no notifications, so
 * here it is taken in JSON mode (the flag is set while handleRequest runs
 * synchronously: with the body parsed it reads the flag before its first
 * await, initialize aside) and its answer is caught as the message the
 * server sends, releasing what the transport holds for it, and handed to
 * the endpoint to write. Every other request gets the event stream as
 * before. Without these internals (another SDK), every request streams.
 */
export class QuietCalls {
  /** Per quiet request not answered yet, what settles its call with the answer. */
  private readonly pending = new Map<RequestId, (answer: QuietAnswer) => void>();
  private readonly internals: TransportInternals | undefined;

  constructor(transport: WebStandardStreamableHTTPServerTransport) {
    const candidate = transport as unknown as Partial<TransportInternals>;
    const usable =
      candidate._enableJsonResponse === false && candidate._requestToStreamMapping instanceof Map && candidate._streamMapping instanceof Map;
    this.internals = usable ? (candidate as TransportInternals) : undefined;
    if (!this.internals) return;
    const internals = this.internals;
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      const id = answerId(message);
      const settle = id === undefined ? undefined : this.pending.get(id);
      if (settle === undefined) return send(message, options);
      // What the SDK's send would do for a JSON-mode answer, and the entry it would leave behind.
      const streamId = internals._requestToStreamMapping.get(id!);
      internals._requestToStreamMapping.delete(id!);
      if (streamId !== undefined) internals._streamMapping.delete(streamId);
      settle({ message });
      return Promise.resolve();
    };
  }

  /**
   * Whether `body` (a parsed POST the endpoint judged a JSON-RPC message or
   * batch, judgeFrame) is one request that may be answered as one JSON body.
   * Judged already, a message with a method and an id is a request: no zod
   * pass again (the SDK's isJSONRPCRequest is one).
   */
  quiet(body: unknown): body is { id: RequestId } {
    if (!this.internals || typeof body !== 'object' || body === null || Array.isArray(body)) return false;
    const message = body as { id?: RequestId; method?: unknown; params?: { _meta?: { progressToken?: unknown } } };
    if (message.id === undefined || typeof message.method !== 'string' || message.method === 'initialize') return false;
    return message.params?._meta?.progressToken === undefined && !this.pending.has(message.id);
  }

  /**
   * The id of a request in `body` (a judged message or batch) that a call still running holds, quiet or streamed:
   * JSON-RPC ids are unique among a client's requests in flight, and the transport keeps one map from id to where its
   * answer goes. Taken again, the first answer went to the one asked last (a quiet call got a batch's tools/list
   * answer in place of its own) and the other request was never answered. Undefined without these internals.
   */
  inUse(body: unknown): RequestId | undefined {
    if (!this.internals) return undefined;
    for (const message of Array.isArray(body) ? body : [body]) {
      const { id, method } = (message ?? {}) as { id?: RequestId; method?: unknown };
      if (id === undefined || typeof method !== 'string') continue;
      if (this.pending.has(id) || this.internals._requestToStreamMapping.has(id)) return id;
    }
    return undefined;
  }

  /** Runs the transport's handleRequest for a quiet(body) request, in JSON mode, and says how the call ended. */
  take(id: RequestId, handle: () => Promise<Response>): Promise<QuietAnswer> {
    return new Promise<QuietAnswer>((resolve) => {
      const settle = (answer: QuietAnswer) => {
        this.pending.delete(id);
        resolve(answer);
      };
      this.pending.set(id, settle);
      const internals = this.internals!;
      internals._enableJsonResponse = true;
      let taken: Promise<Response>;
      try {
        taken = handle();
      } finally {
        internals._enableJsonResponse = false;
      }
      // Settles only with a refusal (a bad session or protocol version): an answer comes through send.
      taken.then(
        (response) => settle({ response }),
        () => settle(undefined),
      );
    });
  }

  /** The transport closed: the calls still waiting get no answer. */
  close(): void {
    for (const settle of [...this.pending.values()]) settle(undefined);
  }
}

function answerId(message: JSONRPCMessage): RequestId | undefined {
  return 'id' in message && ('result' in message || 'error' in message) ? message.id : undefined;
}
