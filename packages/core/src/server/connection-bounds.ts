// Bounds what a client without credentials can hold on the local server.
import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Connections that have not presented the token or the panel cookie, at most,
 * at once. A browser opens six per origin and an agent one or two, so this is
 * far above any honest need and far below the descriptor limit.
 */
export const MAX_UNAUTHENTICATED_CONNECTIONS = 64;
/**
 * How long a connection that has not authenticated may sit without a request
 * in progress: before its first request, or between two. An honest client on
 * loopback sends its request within milliseconds of connecting.
 */
export const UNAUTHENTICATED_DEADLINE_MS = 5000;
/**
 * Node's own bounds, which apply once a request has started arriving:
 * complete headers within 10 s, the whole request (headers and body) within
 * 30 s, and an idle keep-alive connection closed after 5 s. Neither of the
 * first two sees a connection that never sends a byte (hence the deadline
 * above), nor a response still being written: the MCP event stream and the
 * panel WebSocket, once upgraded, are not cut.
 */
export const HTTP_SERVER_TIMEOUTS = {
  headersTimeout: 10_000,
  requestTimeout: 30_000,
  keepAliveTimeout: 5_000,
  /** How often Node checks the two above (default 30 s, which would let a stalled request live 40). */
  connectionsCheckingInterval: 1_000,
} as const;

/** Why a connection without credentials was closed here: `cap`, evicted as the oldest; `deadline`, it sat too long. */
export type BoundsDrop = 'cap' | 'deadline';

export interface ConnectionBoundsOptions {
  maxUnauthenticated?: number;
  deadlineMs?: number;
  /** Told of each connection this closes, and why (diagnostics, and tests that tell these bounds from Node's own). */
  onDrop?: (reason: BoundsDrop) => void;
}

interface Unauthenticated {
  /** Requests on this connection still being answered; the deadline runs only while there are none. */
  inFlight: number;
  timer: NodeJS.Timeout | undefined;
}

/**
 * Bounds what a client without credentials can hold on the local server.
 * Every connection starts untrusted: counted, and closed once it has gone
 * `deadlineMs` without a request in progress. When a new one would exceed
 * `maxUnauthenticated`, the oldest untrusted connection is closed, not the
 * new one: a flood of idle connections then evicts itself, while an honest
 * client, which sends its request at once, is authenticated before enough
 * newer connections arrive to reach it. The server calls `trust` as soon as
 * a request carries valid credentials; from then on the connection is
 * neither counted nor timed here.
 */
export class ConnectionBounds {
  /** In arrival order, so the first entry is the oldest. */
  private readonly untrusted = new Map<Socket, Unauthenticated>();
  private readonly max: number;
  private readonly deadlineMs: number;
  private readonly onDrop: ((reason: BoundsDrop) => void) | undefined;
  private disposed = false;

  constructor(
    private readonly server: Server,
    options: ConnectionBoundsOptions = {},
  ) {
    this.max = options.maxUnauthenticated ?? MAX_UNAUTHENTICATED_CONNECTIONS;
    this.deadlineMs = options.deadlineMs ?? UNAUTHENTICATED_DEADLINE_MS;
    this.onDrop = options.onDrop;
    if (!(this.max >= 1)) throw new RangeError(`maxUnauthenticated must be at least 1, got ${this.max}`);
    if (!(this.deadlineMs > 0)) throw new RangeError(`deadlineMs must be positive, got ${this.deadlineMs}`);
    server.on('connection', this.onConnection);
    // Registered after the server's own request handler, which may already have trusted the socket.
    server.on('request', this.onRequest);
  }

  /** Connections without credentials open right now. */
  get unauthenticatedCount(): number {
    return this.untrusted.size;
  }

  /** The connection presented valid credentials: it is no longer counted or timed. */
  trust(socket: Socket): void {
    const entry = this.untrusted.get(socket);
    if (!entry) return;
    clearTimeout(entry.timer);
    this.untrusted.delete(socket);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.server.off('connection', this.onConnection);
    this.server.off('request', this.onRequest);
    for (const entry of this.untrusted.values()) clearTimeout(entry.timer);
    this.untrusted.clear();
  }

  private readonly onConnection = (socket: Socket): void => {
    if (this.disposed) return;
    while (this.untrusted.size >= this.max) {
      const [oldest] = this.untrusted.keys();
      if (!oldest) break;
      this.drop(oldest, 'cap');
    }
    const entry: Unauthenticated = { inFlight: 0, timer: undefined };
    this.untrusted.set(socket, entry);
    this.arm(socket, entry);
    socket.once('close', () => {
      const current = this.untrusted.get(socket);
      if (current) clearTimeout(current.timer);
      this.untrusted.delete(socket);
    });
  };

  private readonly onRequest = (req: { socket: Socket }, res: ServerResponse): void => {
    const socket = req.socket;
    const entry = this.untrusted.get(socket);
    if (!entry) return;
    entry.inFlight += 1;
    clearTimeout(entry.timer);
    entry.timer = undefined;
    res.once('close', () => {
      entry.inFlight -= 1;
      if (entry.inFlight === 0 && this.untrusted.get(socket) === entry) this.arm(socket, entry);
    });
  };

  private arm(socket: Socket, entry: Unauthenticated): void {
    clearTimeout(entry.timer);
    entry.timer = setTimeout(() => this.drop(socket, 'deadline'), this.deadlineMs);
    entry.timer.unref();
  }

  private drop(socket: Socket, reason: BoundsDrop): void {
    const entry = this.untrusted.get(socket);
    if (entry) clearTimeout(entry.timer);
    this.untrusted.delete(socket);
    socket.destroy();
    this.onDrop?.(reason);
  }
}
