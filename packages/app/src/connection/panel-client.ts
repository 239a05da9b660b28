// The app's end of the panel WebSocket: validated messages, a cursor per session, reconnection that resumes
// every stream.
import {
  Emitter,
  encodeClientMessage,
  MAX_PANEL_INPUT_CHARS,
  parseServerMessage,
  reportError,
  type AgentInfo,
  type ChatServerMessage,
  type LeftoverKind,
  type PanelClientMessage,
  type ProcessServerMessage,
  type RecordingFormat,
  type TimelineServerMessage,
  type PtyEvent,
  type RemoteHost,
  type SessionInfo,
} from '@ptydeck/contract';
import { backoffDelay, DEFAULT_BACKOFF } from './backoff.js';
import { CursorBook } from './cursor-book.js';
import type { AccessCheck, PanelEndpoint } from './endpoint.js';
import type { SocketLike } from './socket.js';

export type { ChatCommand, ConnectionStatus, DisconnectCause, PanelClientOptions, PanelError, ResyncEvent, Snapshot, Timers } from './panel-client-types.js';
import type { ChatCommand, ConnectionStatus, DisconnectCause, PanelClientOptions, PanelError, ResyncEvent, Snapshot, Timers } from './panel-client-types.js';

const browserTimers: Timers = {
  set: (callback, ms) => setTimeout(callback, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * The panel's end of the panel WebSocket: validates everything it receives,
 * keeps a cursor per attached session, reconnects with backoff and resumes each
 * session where its terminal left off. Output is handed on synchronously as it
 * arrives so it can be written to xterm.js in the same task.
 */
export class PanelClient {
  private readonly book = new CursorBook();
  /**
   * Sessions of remote hosts, which a snapshot of this machine's host does
   * not list: their cursors outlive a reconnect, and the core hands each
   * attach to its remote once that remote's link says it has the session.
   */
  private readonly remoteIds = new Set<string>();
  private readonly statusEmitter = new Emitter<ConnectionStatus>({ name: 'status' });
  private readonly snapshotEmitter = new Emitter<Snapshot>({ name: 'snapshot' });
  private readonly eventEmitter = new Emitter<PtyEvent>({ name: 'event' });
  private readonly agentAddedEmitter = new Emitter<AgentInfo>({ name: 'agent added' });
  /** Fires with the id of the agent that left. */
  private readonly agentRemovedEmitter = new Emitter<string>({ name: 'agent removed' });
  private readonly outputEmitter = new Emitter<{ id: string; data: Uint8Array; /** Cursor one past `data`. */ next: number }>({ name: 'output' });
  private readonly resyncEmitter = new Emitter<ResyncEvent>({ name: 'resync' });
  private readonly createdEmitter = new Emitter<{ requestId: string; info: SessionInfo }>({ name: 'created' });
  private readonly errorEmitter = new Emitter<PanelError>({ name: 'error' });
  private readonly chatEmitter = new Emitter<ChatServerMessage>({ name: 'chat' });
  private readonly chatOpenFailedEmitter = new Emitter<{ requestId: string; message: string }>({ name: 'chat open failed' });
  private readonly processesEmitter = new Emitter<ProcessServerMessage>({ name: 'processes' });
  private readonly timelineEmitter = new Emitter<TimelineServerMessage>({ name: 'timeline' });
  private readonly hostsEmitter = new Emitter<RemoteHost[]>({ name: 'hosts' });
  private readonly portForwardedEmitter = new Emitter<{ requestId: string; id: string; port: number; url: string }>({ name: 'port forwarded' });

  readonly onStatus = this.statusEmitter.on;
  readonly onSnapshot = this.snapshotEmitter.on;
  readonly onEvent = this.eventEmitter.on;
  /** After the snapshot's list: each agent that connects. */
  readonly onAgentAdded = this.agentAddedEmitter.on;
  /** After the snapshot's list: the id of each agent that disconnects. */
  readonly onAgentRemoved = this.agentRemovedEmitter.on;
  readonly onOutput = this.outputEmitter.on;
  readonly onResync = this.resyncEmitter.on;
  readonly onCreated = this.createdEmitter.on;
  /** Errors, except the answers to this panel's `chat.open` requests (see onChatOpenFailed). */
  readonly onError = this.errorEmitter.on;
  /** Every chat message from the core: agents, the list on connect, opened, events, closed. */
  readonly onChat = this.chatEmitter.on;
  /** The core refused one of this panel's `chat.open` requests. */
  readonly onChatOpenFailed = this.chatOpenFailedEmitter.on;
  /** A session's processes, what ending some did, and the leftovers of ended sessions (on connect and on each change). */
  readonly onProcesses = this.processesEmitter.on;
  /** Every session's commands on connect, then each one that starts or ends, and the recordings asked for. */
  readonly onTimeline = this.timelineEmitter.on;
  /** The remote hosts the core reaches for this panel, and how each link fares (after every connect, and on each change). */
  readonly onHosts = this.hostsEmitter.on;
  /** A remote session's port, forwarded to this machine: where the browser reaches it. */
  readonly onPortForwarded = this.portForwardedEmitter.on;

  private socket: SocketLike | null = null;
  /** True once the current socket delivered its snapshot; only then are attaches and input sent. */
  private ready = false;
  private instance: string | null = null;
  private attempt = 0;
  private retryTimer: unknown = null;
  private requestSeq = 0;
  /** This panel's `chat.open` requests still unanswered: their errors belong to the chat pane. */
  private readonly chatOpens = new Set<string>();
  private disposed = false;
  private currentStatus: ConnectionStatus = { state: 'connecting', attempt: 0, cause: 'unknown' };
  private cause: DisconnectCause = 'unknown';
  private readonly timers: Timers;

  constructor(private readonly options: PanelClientOptions) {
    this.timers = options.timers ?? browserTimers;
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
    if (this.book.isAttached(id)) return;
    this.book.attach(id);
    if (this.ready) this.send({ type: 'attach', id, cursor: null });
  }

  /**
   * Asks for a session's screen again, for a view that joins a stream already
   * running: the server resyncs from its mirror. Offline, the reconnect's
   * attach asks for it instead.
   */
  refresh(id: string): void {
    if (!this.book.isAttached(id)) return this.attach(id);
    if (this.ready) this.send({ type: 'attach', id, cursor: null });
    else this.book.forget(id);
  }

  /**
   * The session's terminal has parsed its output up to `cursor`: the server
   * sends only a window beyond what was acknowledged. Not queued while
   * offline: a reconnect's attach carries the cursor instead.
   */
  ack(id: string, cursor: number): void {
    if (this.ready && this.book.isAttached(id)) this.send({ type: 'ack', id, cursor });
  }

  detach(id: string): void {
    if (!this.book.isAttached(id)) return;
    this.book.detach(id);
    if (this.ready) this.send({ type: 'detach', id });
  }

  /** Sends keystrokes or a paste; returns false when offline (the input is not queued: stale keys are worse than none). */
  input(id: string, data: string): boolean {
    if (!this.ready) return false;
    for (let start = 0; start < data.length; start += MAX_PANEL_INPUT_CHARS) {
      this.send({ type: 'input', id, data: data.slice(start, start + MAX_PANEL_INPUT_CHARS) });
    }
    return true;
  }

  resize(id: string, cols: number, rows: number): boolean {
    if (!this.ready) return false;
    this.send({ type: 'resize', id, cols, rows });
    return true;
  }

  /** Asks for a new user terminal, on a remote when `host` names one; returns its request id, or null when offline. */
  create(size?: { cols: number; rows: number }, host?: string): string | null {
    if (!this.ready) return null;
    const requestId = `create-${++this.requestSeq}`;
    this.send({ type: 'create', requestId, ...(size ?? {}), ...(host !== undefined ? { host } : {}) });
    return requestId;
  }

  /** Asks the core to forward a remote session's port to this machine (answered through onPortForwarded); null when offline. */
  forwardPort(id: string, port: number): string | null {
    return this.request('port-forward', (requestId) => ({ type: 'port.forward', requestId, id, port }));
  }

  close(id: string): boolean {
    if (!this.ready) return false;
    this.send({ type: 'close', id });
    return true;
  }

  /** Asks the core to start an agent and open a chat with it; returns the request id, or null when offline. */
  openChat(agent: string, cwd?: string): string | null {
    if (!this.ready) return null;
    const requestId = `chat-open-${++this.requestSeq}`;
    this.chatOpens.add(requestId);
    this.send({ type: 'chat.open', requestId, agent, ...(cwd !== undefined ? { cwd } : {}) });
    return requestId;
  }

  /** Sends a prompt, a cancel, an answer, a close or a refresh; false when offline (not queued, like input). */
  sendChat(message: ChatCommand): boolean {
    if (!this.ready) return false;
    this.send(message);
    return true;
  }

  /** Asks for a session's processes (answered through onProcesses); returns the request id, or null when offline. */
  queryProcesses(id: string): string | null {
    return this.request('processes-query', (requestId) => ({ type: 'processes.query', requestId, id }));
  }

  /** Asks the core to end these processes of the session (or of a dead host's chat), which it checks it owns; null when offline. */
  endProcesses(id: string, pids: number[], kind: LeftoverKind = 'session'): string | null {
    return this.request('processes-end', (requestId) => ({ type: 'processes.end', requestId, id, pids, ...(kind === 'chat' ? { kind } : {}) }));
  }

  /** Asks for a session's recording (answered through onTimeline); returns the request id, or null when offline. */
  exportRecording(id: string, format: RecordingFormat): string | null {
    return this.request('timeline-export', (requestId) => ({ type: 'timeline.export', requestId, id, format }));
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.retryTimer !== null) this.timers.clear(this.retryTimer);
    this.retryTimer = null;
    const socket = this.socket;
    this.socket = null;
    this.ready = false;
    socket?.close(1000, 'panel closed');
    this.setStatus({ state: 'disposed' });
    for (const emitter of [
      this.statusEmitter, this.snapshotEmitter, this.eventEmitter, this.agentAddedEmitter,
      this.agentRemovedEmitter, this.outputEmitter, this.resyncEmitter, this.createdEmitter, this.errorEmitter,
      this.chatEmitter, this.chatOpenFailedEmitter, this.processesEmitter, this.timelineEmitter, this.hostsEmitter, this.portForwardedEmitter,
    ]) emitter.clear();
  }

  private request(kind: string, message: (requestId: string) => PanelClientMessage): string | null {
    if (!this.ready) return null;
    const requestId = `${kind}-${++this.requestSeq}`;
    this.send(message(requestId));
    return requestId;
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
    socket.onMessage((data) => {
      if (this.socket === socket) this.handleMessage(data);
    });
    socket.onClose(({ code, reason }) => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.ready = false;
      this.failChatOpens('the connection to ptydeck was lost before the answer came; if the agent started, its chat is listed');
      this.scheduleReconnect(reason || `socket closed (${code})`);
    });
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

  private handleMessage(data: unknown): void {
    const incoming = parseServerMessage(data);
    if (incoming.kind === 'invalid') {
      this.errorEmitter.fire({ code: 'invalid_server_message', message: incoming.reason });
      return;
    }
    if (incoming.kind === 'output') {
      const bytes = this.book.apply(incoming.frame);
      if (bytes) this.outputEmitter.fire({ id: incoming.frame.id, data: bytes, next: incoming.frame.cursor + incoming.frame.data.length });
      return;
    }
    const message = incoming.message;
    switch (message.type) {
      case 'snapshot': {
        const instanceChanged = this.instance !== null && this.instance !== message.instance;
        // Cursors count bytes of one server instance's logs; a new instance means new logs.
        if (instanceChanged) this.book.forgetCursors();
        this.instance = message.instance;
        this.book.retainOnly([...message.sessions.map((session) => session.id), ...this.remoteIds]);
        this.ready = true;
        this.attempt = 0;
        this.cause = 'unknown';
        // The panel shows every host: the core reaches the remotes for this connection only when asked, and
        // asked first, so the attaches that follow for remote sessions wait there for their remotes.
        this.send({ type: 'hosts.watch' });
        for (const id of this.book.ids()) this.send({ type: 'attach', id, cursor: this.book.cursor(id) });
        this.setStatus({ state: 'connected', instance: message.instance });
        this.snapshotEmitter.fire({
          sessions: message.sessions,
          agents: message.agents,
          instance: message.instance,
          instanceChanged,
          ...(message.mcpLaunch ? { mcpLaunch: message.mcpLaunch } : {}),
        });
        return;
      }
      case 'event':
        if (message.event.type === 'pty.removed') {
          this.book.detach(message.event.id);
          this.remoteIds.delete(message.event.id);
        } else if (message.event.info.host !== undefined) this.remoteIds.add(message.event.info.id);
        this.eventEmitter.fire(message.event);
        return;
      case 'agent.added':
        this.agentAddedEmitter.fire(message.agent);
        return;
      case 'agent.removed':
        this.agentRemovedEmitter.fire(message.id);
        return;
      case 'resync':
        if (!this.book.isAttached(message.id)) return;
        this.book.resync(message.id, message.cursor);
        this.resyncEmitter.fire({ id: message.id, screen: message.screen, skipped: message.skipped, cursor: message.cursor, marks: message.marks ?? [] });
        return;
      case 'created':
        if (message.info.host !== undefined) this.remoteIds.add(message.info.id);
        this.createdEmitter.fire({ requestId: message.requestId, info: message.info });
        return;
      case 'chat.opened':
        if (message.requestId !== undefined) this.chatOpens.delete(message.requestId);
        this.chatEmitter.fire(message);
        return;
      case 'chat.agents':
      case 'chat.list':
      case 'chat.event':
      case 'chat.closed':
        this.chatEmitter.fire(message);
        return;
      case 'processes.list':
      case 'processes.ended':
      case 'processes.leftovers':
        this.processesEmitter.fire(message);
        return;
      case 'timeline.snapshot':
      case 'timeline.command':
      case 'timeline.exported':
        this.timelineEmitter.fire(message);
        return;
      case 'hosts':
        this.hostsEmitter.fire(message.hosts);
        return;
      case 'port.forwarded':
        this.portForwardedEmitter.fire({ requestId: message.requestId, id: message.id, port: message.port, url: message.url });
        return;
      case 'error': {
        if (message.requestId !== undefined && this.chatOpens.delete(message.requestId)) {
          this.chatOpenFailedEmitter.fire({ requestId: message.requestId, message: message.message });
          return;
        }
        const error: PanelError = { code: message.code, message: message.message };
        if (message.requestId !== undefined) error.requestId = message.requestId;
        this.errorEmitter.fire(error);
        return;
      }
    }
  }

  /** Answers every unanswered `chat.open` with `reason`: their answers can no longer come. */
  private failChatOpens(reason: string): void {
    const pending = [...this.chatOpens];
    this.chatOpens.clear();
    for (const requestId of pending) this.chatOpenFailedEmitter.fire({ requestId, message: reason });
  }

  private send(message: PanelClientMessage): void {
    this.socket?.send(encodeClientMessage(message));
  }

  private setStatus(status: ConnectionStatus): void {
    this.currentStatus = status;
    this.statusEmitter.fire(status);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

