// One JSON request to the host over node:http: a client's every plain HTTP call (proof, ticket, stop).
import { request } from 'node:http';

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
}

export interface HostAnswer {
  status: number;
  /** The answer parsed as JSON; undefined when it is not JSON. */
  body: unknown;
}

/**
 * Sends one request and reads its JSON answer. Plain node:http, not fetch:
 * fetch loads undici, which costs a short-lived client (`ptydeck ls`, `url`)
 * about a third of its start and of its memory (bench figure 12). Rejects
 * when the server cannot be reached, answers too much, or not within `timeoutMs`.
 */
export function requestJson(url: URL | string, options: HostRequest): Promise<HostAnswer> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: options.method ?? 'GET',
        headers: {
          ...options.headers,
          ...(payload === undefined ? {} : { 'Content-Type': 'application/json' }),
          'Content-Length': String(payload === undefined ? 0 : Buffer.byteLength(payload)),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES) return req.destroy(new Error(`answered more than ${MAX_ANSWER_BYTES} bytes`));
          chunks.push(chunk);
        });
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, body: parseJson(Buffer.concat(chunks).toString('utf8')) });
        });
        res.on('error', reject);
      },
    );
    // The whole exchange, not each read: a server trickling bytes is cut off too.
    const timer = setTimeout(() => req.destroy(new Error(`no answer within ${options.timeoutMs} ms`)), options.timeoutMs);
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.end(payload);
  });
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
