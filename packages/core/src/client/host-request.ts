// One JSON request to the host over a plain TCP socket: a client's every plain HTTP call (proof, ticket, snapshot, stop).
import { ASKER_PID_HEADER } from '@ptydeck/contract';
import { nodeNet } from '../common/lazy-builtins.js';
import { hostOf, portOf, takeEarlyConnection } from './early-connection.js';
import type { ClientSocket } from './raw-tcp.js';

/**
 * The largest answer read: every answer of the host is a small JSON object; a
 * server that is not the host gets no more of the client's memory than this.
 */
const MAX_ANSWER_BYTES = 1024 * 1024;

export interface HostRequest {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** Sent as JSON, with its Content-Type. */
  body?: unknown;
  timeoutMs: number;
  /** Called once the request is written: what the caller does then overlaps the server's work on it. */
  onSent?: () => void;
}

export interface HostAnswer {
  status: number;
  /** The answer's headers, names in lower case. */
  headers: Record<string, string>;
  /** The answer parsed as JSON; undefined when it is not JSON. */
  body: unknown;
}

/**
 * Sends one request and reads its JSON answer. HTTP/1.1 written by hand over
 * node:net, one request per connection: node:http (and fetch, which loads
 * undici) cost a short-lived client (`ptydeck ls`, `url`) a fifth of its
 * start for the few fixed requests it makes (bench figure 12). Every request
 * names this process as its sender (ASKER_PID_HEADER), so a host judging who
 * asks verifies that process instead of searching for it. Rejects when the
 * server cannot be reached, answers what is not HTTP or too much, or not
 * within `timeoutMs`.
 */
export function requestJson(url: URL | string, options: HostRequest): Promise<HostAnswer> {
  const target = typeof url === 'string' ? new URL(url) : url;
  if (target.protocol !== 'http:') return Promise.reject(new Error(`not an http:// address: ${target.href}`));
  const payload = options.body === undefined ? undefined : Buffer.from(JSON.stringify(options.body));
  const headers: Record<string, string> = {
    Host: target.host,
    Connection: 'close',
    [ASKER_PID_HEADER]: String(process.pid),
    ...options.headers,
    ...(payload === undefined ? {} : { 'Content-Type': 'application/json' }),
    'Content-Length': String(payload?.length ?? 0),
  };
  let head: string;
  try {
    head = requestHead(options.method ?? 'GET', target, headers);
  } catch (error) {
    return Promise.reject(error as Error);
  }
  return new Promise((resolve, reject) => {
    const socket = connectTo(target);
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (error: Error | undefined, answer?: HostAnswer) => {
      // Taken whole already (settleWhole): what the server does after it only ends the connection.
      if (settled) return void socket.destroy();
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(answer!);
    };
    /**
     * An answer whole by its Content-Length is taken as it comes, not at the
     * server's close: a short command then writes its output and exits before
     * the close is read, and destroying a socket (Node's net.Socket#_destroy
     * compares it with process.stderr) builds process.stderr, a socket of its
     * own on a pipe (bench figure 12). The connection is left to close as the
     * server closes it (every request says Connection: close), holding no
     * process open, and is cut at the exchange's timeout if the server never
     * does: the same timer, unref'd, not a new one (a first clearTimeout and
     * socket.setTimeout were a quarter of a millisecond between the answer and
     * the output).
     */
    const settleWhole = (answer: HostAnswer) => {
      settled = true;
      socket.unref();
      timer.unref();
      resolve(answer);
    };
    // The whole exchange, not each read: a server trickling bytes is cut off too.
    const timer = setTimeout(() => {
      if (settled) socket.destroy();
      else settle(new Error(`no answer within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    socket.once('connect', () => {
      socket.end(payload === undefined ? head : Buffer.concat([Buffer.from(head, 'latin1'), payload]));
      options.onSent?.();
    });
    socket.on('data', (chunk: Buffer) => {
      // Past a whole answer nothing is read: the timer, unref'd, cuts a server that keeps sending.
      if (settled) return;
      size += chunk.length;
      if (size > MAX_ANSWER_BYTES) return settle(new Error(`answered more than ${MAX_ANSWER_BYTES} bytes`));
      chunks.push(chunk);
      let whole: HostAnswer | undefined;
      try {
        whole = wholeAnswer(chunks);
      } catch (error) {
        return settle(error as Error);
      }
      if (whole) settleWhole(whole);
    });
    socket.once('end', () => {
      if (settled) return void socket.destroy();
      try {
        settle(undefined, parseAnswer(Buffer.concat(chunks)));
      } catch (error) {
        settle(error as Error);
      }
    });
    socket.once('error', (error) => settle(error));
    socket.once('close', () => settle(new Error('the connection closed before an answer')));
  });
}

/**
 * A TCP connection to a URL's host and port: the one the command opened first thing, if it goes there
 * (early-connection.ts, a RawTcpSocket where it could be one), else node:net's, loaded then.
 */
export function connectTo(target: URL): ClientSocket {
  const host = hostOf(target);
  const port = portOf(target);
  return takeEarlyConnection(port, host) ?? nodeNet().connect(port, host);
}

/** The answer in `chunks` once its head and its Content-Length's bytes are all there; undefined while they are not, or the body's end is the close's (no Content-Length, or chunked). */
function wholeAnswer(chunks: Buffer[]): HostAnswer | undefined {
  const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  const head = parseHead(bytes);
  const length = head?.headers['content-length'];
  if (!head || length === undefined || head.headers['transfer-encoding'] !== undefined) return undefined;
  const expected = Number(length);
  if (!Number.isSafeInteger(expected) || bytes.length - head.length < expected) return undefined;
  return parseAnswer(bytes, head);
}

/** An HTTP/1.x answer read to the server's close: status line, headers, and a body by its length, in chunks, or to the end; `head` when it was read already. */
export function parseAnswer(bytes: Buffer, head = parseHead(bytes)): HostAnswer {
  if (!head) throw new Error('answered no complete HTTP head');
  const { headers } = head;
  let body = bytes.subarray(head.length);
  if (headers['transfer-encoding']?.toLowerCase() === 'chunked') body = dechunk(body);
  else if (headers['content-length'] !== undefined) {
    const length = Number(headers['content-length']);
    if (!Number.isSafeInteger(length) || length < 0 || length > body.length) throw new Error('answered less than its Content-Length');
    body = body.subarray(0, length);
  }
  return { status: head.status, headers, body: parseJson(body.toString('utf8')) };
}

/**
 * An HTTP/1.x answer's status and headers (names in lower case), and how many
 * bytes the head took with its blank line; undefined while the head is not
 * all there. Throws when what came is not HTTP.
 */
export function parseHead(bytes: Buffer): { status: number; headers: Record<string, string>; length: number } | undefined {
  const headEnd = bytes.indexOf('\r\n\r\n');
  if (headEnd < 0) return undefined;
  const [statusLine = '', ...lines] = bytes.toString('latin1', 0, headEnd).split('\r\n');
  const status = /^HTTP\/1\.[01] ([1-9][0-9]{2})(?: |$)/.exec(statusLine);
  if (!status) throw new Error('answered something that is not HTTP/1.1');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon <= 0) throw new Error('answered a malformed header');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(status[1]), headers, length: headEnd + 4 };
}

/** A request's head as written on the wire; throws when a header would end its line early. */
export function requestHead(method: string, target: URL, headers: Record<string, string>): string {
  for (const [name, value] of Object.entries(headers)) {
    // Nothing a caller passes may end a header line early.
    if (/[\r\n]/.test(name) || /[\r\n]/.test(value)) throw new Error(`a header holds a line break: ${name}`);
  }
  return `${method} ${target.pathname}${target.search} HTTP/1.1\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;
}

/** A chunked body's data (chunk extensions and trailers ignored). */
function dechunk(bytes: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', at);
    if (lineEnd < 0) throw new Error('answered a truncated chunked body');
    const size = bytes.toString('latin1', at, lineEnd).split(';')[0]!.trim();
    const length = /^[0-9a-fA-F]{1,8}$/.test(size) ? Number.parseInt(size, 16) : Number.NaN;
    if (!Number.isSafeInteger(length) || length < 0 || lineEnd + 2 + length > bytes.length) throw new Error('answered a malformed chunked body');
    if (length === 0) return Buffer.concat(parts);
    parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + length));
    at = lineEnd + 2 + length + 2;
  }
}

/** JSON text's value; undefined when it is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
