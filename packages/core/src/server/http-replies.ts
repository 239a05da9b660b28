// The small pieces of HTTP the host's server answers with: JSON and plain replies, a bounded body,
// a refused WebSocket upgrade, and what a request names (a ticket, the asker's pid).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/** The pid a request names as its sender; NaN for a header that is not one pid, so that the judge refuses it. */
export function claimedPid(header: string | string[] | undefined): number | undefined {
  if (header === undefined) return undefined;
  return typeof header === 'string' && /^[1-9][0-9]{0,9}$/.test(header) ? Number(header) : Number.NaN;
}

/**
 * A JSON reply with its length: a client takes the answer as soon as it is all
 * there, instead of at the chunked body's end or the close (client/host-request.ts).
 */
export function json(res: ServerResponse, status: number, body: unknown): void {
  const text = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', 'Content-Length': text.length });
  res.end(text);
}

/** The request body as text, rejecting once it passes `limit` bytes. */
export function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.destroy();
        reject(new Error('body too large'));
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export function parseTicket(body: string): string | undefined {
  try {
    const value = (JSON.parse(body) as { ticket?: unknown }).ticket;
    return typeof value === 'string' && value.length > 0 ? value : undefined;
  } catch {
    return undefined;
  }
}

export function plain(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
  res.end(body);
}

const STATUS_TEXT: Record<number, string> = { 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found' };

export function refuseUpgrade(socket: Duplex, status: number, reason: string, headers: Record<string, string> = {}): void {
  const body = `${reason}\n`;
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\nConnection: close\r\n${extra}Content-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
