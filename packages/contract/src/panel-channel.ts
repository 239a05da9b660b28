// The client end of the panel protocol apart from its transport, for the app and the CLI alike: each
// server message dispatched to its channel's event, a cursor per followed session, resyncs, and nothing
// sent before a socket's snapshot. No zod here (types only from the schemas): `ptydeck attach` loads it.
import type { ChatClientMessage, ChatServerMessage } from './chat-protocol.js';
import { CursorBook } from './cursor-book.js';
import { Emitter, type OnEvent, type Unsubscribe } from './emitter.js';
import type { PtyEvent } from './events.js';
import type { McpLaunch, PanelClientMessage, PanelServerMessage, ScreenMark } from './panel-protocol.js';
import type { IncomingPanelMessage } from './panel-wire.js';
import type { LeftoverKind, ProcessServerMessage } from './process-protocol.js';
import type { RemoteHost } from './remote-protocol.js';
import type { AgentInfo, SessionInfo } from './session.js';
import { MAX_PANEL_INPUT_CHARS } from './session-limits.js';
import type { RecordingFormat, TimelineServerMessage } from './timeline.js';

/**
 * The slice of a WebSocket the channel uses: the app's browser socket and the
 * CLI's own client both fit it, and so does a test's fake.
 */
export interface PanelSocket<D> {
  send(text: string): void;
  onMessage(listener: (data: D) => void): Unsubscribe;
  /** Fires once when the socket ends, whether it never opened, failed or was closed. */
  onClose(listener: (event: SocketClosed) => void): Unsubscribe;
}

export interface SocketClosed {
  code: number;
  reason: string;
}

export type PanelSnapshotMessage = Extract<PanelServerMessage, { type: 'snapshot' }>;

export interface PanelChannelOptions<D> {
  /** Checks one message off the socket: the contract's parse (zod) in the app, attach's hand check in the CLI. */
  read(data: D): IncomingPanelMessage;
  /** Puts a message on the wire: the contract's checked encoding in the app, plain JSON where zod is spared. */
  encode(message: PanelClientMessage): string;
  /**
   * Asks the core on every snapshot to reach the remote hosts for this
   * connection (the panel shows every host; a CLI command needs none).
   */
  watchHosts?: boolean;
  /**
   * A message the reader refuses comes out as an `invalid_server_message`
   * error. Otherwise it is left out: attach reads few channels and the
   * others come back invalid, and a report would land on the screen it draws.
   */
  reportInvalid?: boolean;
}

export interface Snapshot {
  sessions: SessionInfo[];
  agents: AgentInfo[];
  instance: string;
  /** True when the server instance differs from the one before: every earlier session is gone. */
  instanceChanged: boolean;
  mcpLaunch?: McpLaunch;
}

export interface ResyncEvent {
  id: string;
  /** Serialized screen (with scrollback) to write after resetting the terminal. */
  screen: string;
  /** Output bytes this viewer never saw. */
  skipped: number;
  /** Cursor the screen reflects (but for what a flood wrote while it was made, see ResyncMessage); output continues from here. */
  cursor: number;
  /** Where commands' outputs start and end in `screen` (the host's word: rows to clamp). */
  marks: ScreenMark[];
}

export interface PanelOutput {
  id: string;
  /** Only bytes not handed on before: a resume's overlap is trimmed. */
  data: Uint8Array;
  /** Cursor one past `data`. */
  next: number;
}

export interface PanelError {
  code: string;
  message: string;
  requestId?: string;
}

/** A chat message for the core other than `chat.open` (which `openChat` sends, minting its request id). */
export type ChatCommand = Exclude<ChatClientMessage, { type: 'chat.open' }>;

/**
 * One panel client's protocol state across its sockets: which sessions it
 * follows and where each stream stands, so that a new socket resumes every
 * stream; which requests wait for an answer. Commands return false or null
 * while no socket has delivered its snapshot: nothing is queued (stale keys
 * are worse than none; a reconnect's attach carries the cursors instead).
 * Output is handed on synchronously as it arrives.
 */
export class PanelChannel<D> {
  private readonly book = new CursorBook();
  /**
   * Sessions of remote hosts, which a snapshot of this machine's host does
   * not list: their cursors outlive a reconnect, and the core hands each
   * attach to its remote once that remote's link says it has the session.
   */
  private readonly remoteIds = new Set<string>();
  private readonly snapshotEmitter = new Emitter<Snapshot>({ name: 'snapshot' });
  private readonly eventEmitter = new Emitter<PtyEvent>({ name: 'event' });
  private readonly agentAddedEmitter = new Emitter<AgentInfo>({ name: 'agent added' });
  private readonly agentRemovedEmitter = new Emitter<string>({ name: 'agent removed' });
  private readonly outputEmitter = new Emitter<PanelOutput>({ name: 'output' });
  private readonly resyncEmitter = new Emitter<ResyncEvent>({ name: 'resync' });
  private readonly createdEmitter = new Emitter<{ requestId: string; info: SessionInfo }>({ name: 'created' });
  private readonly errorEmitter = new Emitter<PanelError>({ name: 'error' });
  private readonly chatEmitter = new Emitter<ChatServerMessage>({ name: 'chat' });
  private readonly chatOpenFailedEmitter = new Emitter<{ requestId: string; message: string }>({ name: 'chat open failed' });
  private readonly processesEmitter = new Emitter<ProcessServerMessage>({ name: 'processes' });
  private readonly timelineEmitter = new Emitter<TimelineServerMessage>({ name: 'timeline' });
  private readonly hostsEmitter = new Emitter<RemoteHost[]>({ name: 'hosts' });
  private readonly portForwardedEmitter = new Emitter<{ requestId: string; id: string; port: number; url: string }>({ name: 'port forwarded' });
  private readonly closedEmitter = new Emitter<SocketClosed>({ name: 'socket closed' });

  /** Each socket's snapshot, after the channel resumed its streams on it. */
  readonly onSnapshot: OnEvent<Snapshot> = this.snapshotEmitter.on;
  readonly onEvent: OnEvent<PtyEvent> = this.eventEmitter.on;
  /** After the snapshot's list: each agent that connects. */
  readonly onAgentAdded: OnEvent<AgentInfo> = this.agentAddedEmitter.on;
  /** After the snapshot's list: the id of each agent that disconnects. */
  readonly onAgentRemoved: OnEvent<string> = this.agentRemovedEmitter.on;
  /** A followed session's output, beyond what was handed on before. */
  readonly onOutput: OnEvent<PanelOutput> = this.outputEmitter.on;
  /** A followed session's screen, restored by the server; its output continues from the event's cursor. */
  readonly onResync: OnEvent<ResyncEvent> = this.resyncEmitter.on;
  readonly onCreated: OnEvent<{ requestId: string; info: SessionInfo }> = this.createdEmitter.on;
  /** Errors, except the answers to this client's `chat.open` requests (see onChatOpenFailed). */
  readonly onError: OnEvent<PanelError> = this.errorEmitter.on;
  /** Every chat message from the core: agents, the list on connect, opened, events, closed. */
  readonly onChat: OnEvent<ChatServerMessage> = this.chatEmitter.on;
  /** The core refused one of this client's `chat.open` requests, or the socket went before it answered. */
  readonly onChatOpenFailed: OnEvent<{ requestId: string; message: string }> = this.chatOpenFailedEmitter.on;
  /** A session's processes, what ending some did, and the leftovers of ended sessions (on connect and on each change). */
  readonly onProcesses: OnEvent<ProcessServerMessage> = this.processesEmitter.on;
  /** Every session's commands on connect, then each one that starts or ends, and the recordings asked for. */
  readonly onTimeline: OnEvent<TimelineServerMessage> = this.timelineEmitter.on;
  /** The remote hosts the core reaches for this client, and how each link fares (after every connect, and on each change). */
  readonly onHosts: OnEvent<RemoteHost[]> = this.hostsEmitter.on;
  /** A remote session's port, forwarded to this machine: where the browser reaches it. */
  readonly onPortForwarded: OnEvent<{ requestId: string; id: string; port: number; url: string }> = this.portForwardedEmitter.on;
  /** The socket in use closed without the channel's owner letting it go. */
  readonly onClosed: OnEvent<SocketClosed> = this.closedEmitter.on;

  private socket: PanelSocket<D> | null = null;
  private offSocket: Unsubscribe[] = [];
  /** True once the current socket delivered its snapshot; only then are attaches and input sent. */
  private ready = false;
  private instance: string | null = null;
  private requestSeq = 0;
  /** This client's `chat.open` requests still unanswered: their errors belong to the chat pane. */
  private readonly chatOpens = new Set<string>();

  constructor(private readonly options: PanelChannelOptions<D>) {}

  /**
   * Speaks over `socket` from now on; nothing is sent on it before its
   * snapshot, which comes as its first message, or as `snapshot` when its
   * opener read that already.
   */
  use(socket: PanelSocket<D>, snapshot?: PanelSnapshotMessage): void {
    this.release();
    this.socket = socket;
    // Each kept as it is made, and each checking its socket is still the one in use: a socket that throws
    // halfway through leaves nothing behind that outlives the next.
    this.offSocket.push(socket.onMessage((data) => {
      if (this.socket === socket) this.receive(data);
    }));
    this.offSocket.push(socket.onClose((event) => {
      if (this.socket !== socket) return;
      this.release();
      this.failChatOpens('the connection to ptydeck was lost before the answer came; if the agent started, its chat is listed');
      this.closedEmitter.fire(event);
    }));
    if (snapshot) this.dispatch(snapshot);
  }

  /** A message of the current socket's that its opener read off before handing it over. */
  receive(data: D): void {
    if (this.socket === null) return;
    const incoming = this.options.read(data);
    if (incoming.kind === 'invalid') {
      if (this.options.reportInvalid) this.errorEmitter.fire({ code: 'invalid_server_message', message: incoming.reason });
      return;
    }
    if (incoming.kind === 'output') {
      const bytes = this.book.apply(incoming.frame);
      if (bytes) this.outputEmitter.fire({ id: incoming.frame.id, data: bytes, next: incoming.frame.cursor + incoming.frame.data.length });
      return;
    }
    this.dispatch(incoming.message);
  }

  /** Lets the socket go (its owner closes it): no more of its messages, and no close event for it. */
  release(): void {
    for (const off of this.offSocket) off();
    this.offSocket = [];
    this.socket = null;
    this.ready = false;
  }

  /** Streams a session's output. Idempotent: a second attach never rewinds its cursor. */
  attach(id: string): void {
    if (this.book.isAttached(id)) return;
    this.book.attach(id);
    if (this.ready) this.send({ type: 'attach', id, cursor: null });
  }

  /**
   * Tracks a session the server attached without being asked (the handshake
   * named it: PANEL_ATTACH_PARAM), as attach() would, without sending it.
   */
  attachedByServer(id: string): void {
    this.book.attach(id);
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

  /** Sends keystrokes or a paste, in frames the server takes; false when offline (the input is not queued). */
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
    return this.request('create', (requestId) => ({ type: 'create', requestId, ...(size ?? {}), ...(host !== undefined ? { host } : {}) }));
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
    const requestId = this.request('chat-open', (requestId) => ({ type: 'chat.open', requestId, agent, ...(cwd !== undefined ? { cwd } : {}) }));
    if (requestId !== null) this.chatOpens.add(requestId);
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

  /** Lets the socket go and drops every listener. */
  dispose(): void {
    this.release();
    for (const emitter of [
      this.snapshotEmitter, this.eventEmitter, this.agentAddedEmitter, this.agentRemovedEmitter, this.outputEmitter,
      this.resyncEmitter, this.createdEmitter, this.errorEmitter, this.chatEmitter, this.chatOpenFailedEmitter,
      this.processesEmitter, this.timelineEmitter, this.hostsEmitter, this.portForwardedEmitter, this.closedEmitter,
    ]) emitter.clear();
  }

  private request(kind: string, message: (requestId: string) => PanelClientMessage): string | null {
    if (!this.ready) return null;
    const requestId = `${kind}-${++this.requestSeq}`;
    this.send(message(requestId));
    return requestId;
  }

  private dispatch(message: PanelServerMessage): void {
    switch (message.type) {
      case 'snapshot': {
        const instanceChanged = this.instance !== null && this.instance !== message.instance;
        // Cursors count bytes of one server instance's logs; a new instance means new logs.
        if (instanceChanged) this.book.forgetCursors();
        this.instance = message.instance;
        this.book.retainOnly([...message.sessions.map((session) => session.id), ...this.remoteIds]);
        this.ready = true;
        // The panel shows every host: the core reaches the remotes for this connection only when asked, and
        // asked first, so the attaches that follow for remote sessions wait there for their remotes.
        if (this.options.watchHosts) this.send({ type: 'hosts.watch' });
        for (const id of this.book.ids()) this.send({ type: 'attach', id, cursor: this.book.cursor(id) });
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
    this.socket?.send(this.options.encode(message));
  }
}
