import { request } from 'node:http';
import WebSocket from 'ws';
import { PANEL_WS_PATH, TICKET_EXCHANGE_PATH, TICKET_FRAGMENT_KEY } from '@ptydeck/contract';

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A plain HTTP request with full control of Host and Origin (fetch forbids setting Host). */
export function rawRequest(
  port: number,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: { Host: `127.0.0.1:${port}`, ...options.headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** The one-time ticket in a panel link's fragment (`<server>/#ticket=...`). */
export function ticketOf(link: string): string {
  return new URLSearchParams(new URL(link).hash.slice(1)).get(TICKET_FRAGMENT_KEY) ?? '';
}

/** Trades a panel link's ticket for the panel token as the page does: POST, JSON, the server's own Origin. */
export function exchangeTicket(link: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  const url = new URL(link);
  return rawRequest(Number(url.port), TICKET_EXCHANGE_PATH, {
    method: 'POST',
    headers: { Origin: url.origin, 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify({ ticket: ticketOf(link) }),
  });
}

/**
 * Every message a socket received, in order, from the moment it was created
 * (a server may speak first, before a test could attach a listener).
 */
export class MessageQueue {
  readonly all: Array<{ data: Buffer; binary: boolean }> = [];
  private waiters: Array<() => void> = [];

  constructor(ws: WebSocket) {
    ws.on('message', (data, binary) => {
      this.all.push({ data: Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer), binary });
      const waiters = this.waiters;
      this.waiters = [];
      for (const w of waiters) w();
    });
  }

  /** Resolves with the first message at or after index `from` that satisfies `match`. */
  async waitFor<T>(match: (m: { data: Buffer; binary: boolean }) => T | undefined, from = 0): Promise<T> {
    for (let i = from; ; i++) {
      while (i >= this.all.length) await new Promise<void>((r) => this.waiters.push(r));
      const found = match(this.all[i]!);
      if (found !== undefined) return found;
    }
  }

  /** The next JSON message satisfying `predicate`. */
  json(predicate: (m: any) => boolean = () => true, from = 0): Promise<any> {
    return this.waitFor((m) => {
      if (m.binary) return undefined;
      const value = JSON.parse(m.data.toString('utf8'));
      return predicate(value) ? value : undefined;
    }, from);
  }
}

/** Opens a WebSocket and resolves with it, or with the HTTP status the server refused the upgrade with. */
export function openSocket(
  port: number,
  options: { path?: string; headers?: Record<string, string>; protocols?: string[] } = {},
): Promise<{ ws: WebSocket; messages: MessageQueue } | { refused: number }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}${options.path ?? PANEL_WS_PATH}`, options.protocols ?? [], {
      headers: { Host: `127.0.0.1:${port}`, ...options.headers },
    });
    const messages = new MessageQueue(ws);
    ws.once('open', () => resolve({ ws, messages }));
    ws.once('unexpected-response', (_req, res) => {
      resolve({ refused: res.statusCode ?? 0 });
      res.resume();
    });
    ws.once('error', (error) => reject(error));
  });
}

/** One raw POST to /mcp with the agent token, as a client without the SDK sends it; `session` names the MCP session. */
export function postMcp(serverUrl: string, token: string, body: string, session?: string | null): Promise<Response> {
  return fetch(new URL('/mcp', serverUrl), {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'Mcp-Protocol-Version': '2025-06-18',
      ...(session ? { 'Mcp-Session-Id': session } : {}),
    },
    body,
  });
}
