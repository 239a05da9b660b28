// Hands a request to the SDK's web-standard MCP transport and writes its
// answer to Node's response: a call whose event stream would carry nothing
// but its answer goes out as one plain JSON body.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';

/**
 * How long a call may run before its answer is committed to an event stream
 * (headers sent at once): past it a client waiting for headers learns the
 * call is alive, and a long call is one whose few bytes of SSE cost nothing.
 */
export const SSE_COMMIT_MS = 1000;

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
 * and every client must accept both.
 */
export async function handleMcpRequest(
  transport: WebStandardStreamableHTTPServerTransport,
  req: IncomingMessage,
  res: ServerResponse,
  parsedBody?: unknown,
  streamAfterMs = SSE_COMMIT_MS,
): Promise<void> {
  // What the SDK would refuse anyway, refused before a Web Request is built (TRACE cannot be one).
  if (req.method !== 'POST' && req.method !== 'GET' && req.method !== 'DELETE') {
    res.writeHead(405, { allow: 'GET, POST, DELETE', 'content-type': 'application/json' });
    return void res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null }));
  }
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
