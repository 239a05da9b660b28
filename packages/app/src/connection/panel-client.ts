// The app's end of the panel WebSocket: the contract's panel channel (validated messages, a cursor per session,
// resumed streams) over the browser's socket, reconnected with backoff.
import {
  encodeClientMessage,
  Emitter,
  PanelChannel,
  parseServerMessage,
  reportError,
  type LeftoverKind,
  type RecordingFormat,
} from '@ptydeck/contract';
import { backoffDelay, DEFAULT_BACKOFF } from './backoff.js';
import type { AccessCheck, PanelEndpoint } from './endpoint.js';
import type { SocketLike } from './socket.js';

export type { ChatCommand, ConnectionStatus, DisconnectCause, PanelClientOptions, PanelError, ResyncEvent, Snapshot, Timers } from './panel-client-types.js';
import type { ChatCommand, ConnectionStatus, DisconnectCause, PanelClientOptions, Timers } from './panel-client-types.js';

const browserTimers: Timers = {
  set: (callback, ms) => setTimeout(callback, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * The panel's end of the panel WebSocket: the contract's PanelChannel does
 * the protocol (every message validated, a cursor per attached session, each
 * session resumed where its terminal left off on a new socket, output handed
 * on synchronously so it is written to xterm.js in the same task); this
 * finds the endpoint, opens the socket, reconnects with backoff and says how
 * the connection fares.
 */
export class PanelClient {
  private readonly channel = new PanelChannel<unknown>({ read: parseServerMessage, encode: encodeClientMessage, watchHosts: true, reportInvalid: true });
  private readonly statusEmitter = new Emitter<ConnectionStatus>({ name: 'status' });

  readonly onStatus = this.statusEmitter.on;
  readonly onSnapshot = this.channel.onSnapshot;
  readonly onEvent = this.channel.onEvent;
  /** After the snapshot's list: each agent that connects. */
  readonly onAgentAdded = this.channel.onAgentAdded;
  /** After the snapshot's list: the id of each agent that disconnects. */
  readonly onAgentRemoved = this.channel.onAgentRemoved;
  readonly onOutput = this.channel.onOutput;
  readonly onResync = this.channel.onResync;
  readonly onCreated = this.channel.onCreated;
  /** Errors, except the answers to this panel's `chat.open` requests (see onChatOpenFailed). */
  readonly onError = this.channel.onError;
  /** Every chat message from the core: agents, the list on connect, opened, events, closed. */
  readonly onChat = this.channel.onChat;
  /** The core refused one of this panel's `chat.open` requests. */
  readonly onChatOpenFailed = this.channel.onChatOpenFailed;
  /** A session's processes, what ending some did, and the leftovers of ended sessions (on connect and on each change). */
  readonly onProcesses = this.channel.onProcesses;
  /** Every session's commands on connect, then each one that starts or ends, and the recordings asked for. */
  readonly onTimeline = this.channel.onTimeline;
  /** The remote hosts the core reaches for this panel, and how each link fares (after every connect, and on each change). */
  readonly onHosts = this.channel.onHosts;
  /** A remote session's port, forwarded to this machine: where the browser reaches it. */
  readonly onPortForwarded = this.channel.onPortForwarded;

  private socket: SocketLike | null = null;
  private attempt = 0;
  private retryTimer: unknown = null;
  private disposed = false;
  private currentStatus: ConnectionStatus = { state: 'connecting', attempt: 0, cause: 'unknown' };
  private cause: DisconnectCause = 'unknown';
  private readonly timers: Timers;

  constructor(private readonly options: PanelClientOptions) {
    this.timers = options.timers ?? browserTimers;
    // Subscribed before any user of the client: the status says connected before the snapshot's listeners run.
    this.channel.onSnapshot(({ instance }) => {
      this.attempt = 0;
      this.cause = 'unknown';
      this.setStatus({ state: 'connected', instance });
    });
    this.channel.onClosed(({ code, reason }) => {
      this.socket = null;
      this.scheduleReconnect(reason || `socket closed (${code})`);
    });
  }

  get status(): ConnectionStatus {
    return this.currentStatus;
  }

  start(): void {
    if (this.socket || this.disposed) return;
    this.connect();
  }

  /** Streams a session's output. Idempotent: a second attach never rewinds its cursor. */
  attach(id: string): void {
    this.channel.attach(id);
  }

  /**
   * Asks for a session's screen again, for a view that joins a stream already
   * running: the server resyncs from its mirror. Offline, the reconnect's
   * attach asks for it instead.
   */
  refresh(id: string): void {
    this.channel.refresh(id);
  }

  /** The session's terminal has parsed its output up to `cursor` (not queued while offline). */
  ack(id: string, cursor: number): void {
    this.channel.ack(id, cursor);
  }

  detach(id: string): void {
    this.channel.detach(id);
  }

  /** Sends keystrokes or a paste; returns false when offline (the input is not queued: stale keys are worse than none). */
  input(id: string, data: string): boolean {
    return this.channel.input(id, data);
  }

  resize(id: string, cols: number, rows: number): boolean {
    return this.channel.resize(id, cols, rows);
  }

  /** Asks for a new user terminal, on a remote when `host` names one; returns its request id, or null when offline. */
  create(size?: { cols: number; rows: number }, host?: string): string | null {
    return this.channel.create(size, host);
  }

  /** Asks the core to forward a remote session's port to this machine (answered through onPortForwarded); null when offline. */
  forwardPort(id: string, port: number): string | null {
    return this.channel.forwardPort(id, port);
  }

  close(id: string): boolean {
    return this.channel.close(id);
  }

  /** Asks the core to start an agent and open a chat with it; returns the request id, or null when offline. */
  openChat(agent: string, cwd?: string): string | null {
    return this.channel.openChat(agent, cwd);
  }

  /** Sends a prompt, a cancel, an answer, a close or a refresh; false when offline (not queued, like input). */
  sendChat(message: ChatCommand): boolean {
    return this.channel.sendChat(message);
  }

  /** Asks for a session's processes (answered through onProcesses); returns the request id, or null when offline. */
  queryProcesses(id: string): string | null {
    return this.channel.queryProcesses(id);
  }

  /** Asks the core to end these processes of the session (or of a dead host's chat), which it checks it owns; null when offline. */
  endProcesses(id: string, pids: number[], kind: LeftoverKind = 'session'): string | null {
    return this.channel.endProcesses(id, pids, kind);
  }

  /** Asks for a session's recording (answered through onTimeline); returns the request id, or null when offline. */
  exportRecording(id: string, format: RecordingFormat): string | null {
    return this.channel.exportRecording(id, format);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.retryTimer !== null) this.timers.clear(this.retryTimer);
    this.retryTimer = null;
    const socket = this.socket;
    this.socket = null;
    this.channel.release();
    socket?.close(1000, 'panel closed');
    this.setStatus({ state: 'disposed' });
    this.statusEmitter.clear();
    this.channel.dispose();
  }

  /**
   * One connection attempt. Its expected failures (no endpoint, a socket that
   * will not open) schedule a retry inside; anything else it throws is
   * reported and retried too, so the client never stays 'connecting' for good.
   */
  private connect(): void {
    this.tryConnect().catch((error: unknown) => {
      (this.options.reportError ?? reportError)(error, 'connecting the panel socket failed');
      this.scheduleReconnect(`connecting failed: ${describe(error)}`);
    });
  }

  private async tryConnect(): Promise<void> {
    this.retryTimer = null;
    this.setStatus({ state: 'connecting', attempt: this.attempt, cause: this.cause });
    let endpoint: PanelEndpoint;
    try {
      endpoint = await this.options.endpoint();
    } catch (error) {
      this.scheduleReconnect(`cannot find the server: ${describe(error)}`);
      return;
    }
    if (this.disposed) return;
    let socket: SocketLike;
    try {
      socket = this.options.openSocket(endpoint.url, endpoint.protocols);
    } catch (error) {
      this.scheduleReconnect(`cannot open the panel socket: ${describe(error)}`);
      return;
    }
    this.socket = socket;
    this.channel.use(socket);
  }

  private scheduleReconnect(reason: string): void {
    if (this.disposed) return;
    const retryInMs = backoffDelay(this.attempt, this.options.backoff ?? DEFAULT_BACKOFF, this.options.random);
    this.setStatus({ state: 'disconnected', attempt: this.attempt, retryInMs, reason, cause: this.cause });
    this.attempt += 1;
    this.retryTimer = this.timers.set(() => this.connect(), retryInMs);
    this.diagnose().catch((error: unknown) => (this.options.reportError ?? reportError)(error, 'diagnosing the panel connection failed'));
  }

  /** Finds out why the connection failed and says so in the status, unless it has come back meanwhile. */
  private async diagnose(): Promise<void> {
    const check = this.options.checkAccess;
    if (!check) return;
    let found: AccessCheck;
    try {
      found = await check();
    } catch {
      found = 'unreachable';
    }
    const status = this.currentStatus;
    if (this.disposed || (status.state !== 'disconnected' && status.state !== 'connecting')) return;
    // Allowed yet not connected (a dropped socket, a server still starting): no cause to name.
    this.cause = found === 'allowed' ? 'unknown' : found;
    if (status.cause !== this.cause) this.setStatus({ ...status, cause: this.cause });
  }

  private setStatus(status: ConnectionStatus): void {
    this.currentStatus = status;
    this.statusEmitter.fire(status);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

