// One panel WebSocket: session events, per-session output streams, and the requests and input coming back.
import type { Duplex } from 'node:stream';
import type { WebSocket, RawData } from 'ws';
import {
  DisposableStore,
  PanelClientMessage,
  ackOf,
  checkJsonAs,
  reportError,
  type ErrorReporter,
  type HostFacts,
  type McpLaunch,
  type PanelServerMessage,
  type SessionId,
} from '@ptydeck/contract';
import { PtyError, type PtyService } from '../pty/types.js';
import { ChatError } from '../chats/chat-session.js';
import type { ChatHost } from '../chats/chat-host.js';
import type { AgentRegistry } from './agent-registry.js';
import type { ScreenService } from '../screen/index.js';
import { ViewerStreams } from './viewer-streams.js';
import { spawnTurnsOf } from '../pty/spawn-turns.js';
import type { ProcessWatch, SessionFacts } from '../facts/index.js';
import { reviewedRecording, type Timeline } from '../timeline/index.js';
import type { OpenRemoteHosts, RemoteHosts } from '../remote/remote-hosts.js';

/**
 * Control messages are never dropped, so a client that stops reading while
 * they pile up (or floods requests without reading the replies) is cut off
 * here; it reconnects and resumes from its cursors.
 */
const CONTROL_BACKLOG_LIMIT = 32 * 1024 * 1024;
/** Command records a panel is sent when it connects (then each new one). */
const TIMELINE_SNAPSHOT_RECORDS = 5000;

export interface PanelConnectionDeps {
  service: PtyService;
  /** The sessions as the panel is shown them: the service's record with what was learned of them (prompts, shell state, ports). */
  facts: Pick<SessionFacts, 'list' | 'on'>;
  agents: Pick<AgentRegistry, 'list' | 'onAdded' | 'onRemoved'>;
  /** The service's screens, shared with the agent tool: a resync hands a viewer one. */
  screens: Pick<ScreenService, 'snapshot'>;
  instance: string;
  mcpLaunch?: McpLaunch;
  /** The host's own facts, sent in the snapshot. */
  host?: HostFacts;
  /** Where a failure nothing awaits (a screen that could not be restored) is reported. Default: the contract's reportError. */
  reportError?: ErrorReporter;
  /**
   * The socket under the WebSocket, corked while output for many sessions is
   * sent so it leaves in one write instead of one per frame (with 100 sessions
   * flooding, those writes were 15% of the core's CPU).
   */
  socket?: Pick<Duplex, 'cork' | 'uncork'>;
  /** The chats with ACP agents; without it the panel is told there are none and chat requests fail. */
  chats?: Pick<ChatHost, 'agents' | 'list' | 'open' | 'prompt' | 'cancel' | 'answer' | 'close' | 'onOpened' | 'onEvent' | 'onClosed' | 'onAgentsChanged'>;
  /** Sessions' ports and leftover processes: the panel watches them while connected. Without it, process requests fail. */
  processes?: Pick<ProcessWatch, 'watch' | 'leftovers' | 'onLeftovers' | 'query' | 'end'>;
  /** Every session's commands (timeline/): the panel gets them all, then each change, and asks for recordings. */
  timeline?: Pick<Timeline, 'list' | 'onCommand' | 'recording'>;
  /** The remotes a panel that sends `hosts.watch` is shown (remote/); without it, it is told there are none. */
  remotes?: OpenRemoteHosts;
  /** What a developer's new tab runs (developer-shell.ts); without it, or when it answers undefined, their login shell as it is. */
  /** The developer's tab's login shell arguments, given the shell its environment names (developer-shell.ts). */
  developerShell?: (shell: string) => string[] | undefined;
  /** The session the handshake named (PANEL_ATTACH_PARAM): attached right after the snapshot, as an `attach` without a cursor would. */
  attach?: SessionId;
}

/** Every session and agent now, and the host's facts: a panel's first message, and what /snapshot answers `ptydeck ls`. */
export function snapshotMessage(deps: Pick<PanelConnectionDeps, 'facts' | 'agents' | 'instance' | 'mcpLaunch' | 'host'>): Extract<PanelServerMessage, { type: 'snapshot' }> {
  return {
    type: 'snapshot',
    sessions: deps.facts.list(),
    agents: deps.agents.list(),
    instance: deps.instance,
    ...(deps.mcpLaunch ? { mcpLaunch: deps.mcpLaunch } : {}),
    ...(deps.host ? { host: deps.host } : {}),
  };
}

/**
 * One panel WebSocket: the control stream of session events, per-session
 * output (ViewerStreams: each viewer from its own cursor, within its window),
 * and the requests and input coming back.
 */
export class PanelConnection {
  private readonly subscriptions = new DisposableStore();
  private readonly streams: ViewerStreams;
  /** Opened when the panel asks (`hosts.watch`): a CLI's panel connection never reaches a remote. */
  private remotes: RemoteHosts | undefined;
  private closed = false;

  constructor(
    private readonly ws: WebSocket,
    private readonly deps: PanelConnectionDeps,
  ) {
    const { service, agents } = deps;
    this.streams = new ViewerStreams({
      ws,
      service,
      screens: deps.screens,
      ...(deps.socket ? { socket: deps.socket } : {}),
      send: (message) => this.send(message),
      onWriteError: () => this.dispose(),
      report: (error, context) => this.report(error, context),
    });
    const subscriptions = this.subscriptions;
    // Before the snapshot and before this panel hears events: a due look lands in the snapshot's ports, not in events ahead of it.
    if (deps.processes) subscriptions.add(deps.processes.watch());
    const { facts } = deps;
    subscriptions.add(facts.on('pty.created', (event) => this.send({ type: 'event', event })));
    subscriptions.add(facts.on('pty.updated', (event) => this.send({ type: 'event', event })));
    subscriptions.add(facts.on('pty.exited', (event) => this.send({ type: 'event', event })));
    subscriptions.add(
      facts.on('pty.removed', (event) => {
        this.streams.detach(event.id);
        this.send({ type: 'event', event });
      }),
    );
    subscriptions.add(service.on('pty.data', (event) => this.streams.output(event.id, event.data.length, event.cursor + event.data.length)));
    subscriptions.add(agents.onAdded((agent) => this.send({ type: 'agent.added', agent })));
    subscriptions.add(agents.onRemoved((agent) => this.send({ type: 'agent.removed', id: agent.id })));
    const { chats } = deps;
    if (chats) {
      subscriptions.add(
        chats.onOpened(({ info, origin }) => {
          // The panel that asked hears of it with its requestId; the others just learn the chat exists.
          const requestId = origin?.panel === this ? origin.requestId : undefined;
          this.send(requestId === undefined ? { type: 'chat.opened', info } : { type: 'chat.opened', requestId, info });
        }),
      );
      subscriptions.add(chats.onEvent(({ chatId, event }) => this.send({ type: 'chat.event', chatId, event })));
      subscriptions.add(chats.onClosed((chatId) => this.send({ type: 'chat.closed', chatId })));
      // The pane's list of agents follows agents.json as the developer edits it.
      subscriptions.add(chats.onAgentsChanged(() => this.sendAgents()));
    }
    ws.on('message', (data, isBinary) => this.onMessage(data, isBinary));
    ws.on('close', () => this.dispose());
    ws.on('error', () => this.dispose());
    this.send(snapshotMessage(deps));
    if (deps.attach !== undefined) this.attachNamed(deps.attach);
    this.send({ type: 'chat.list', chats: chats?.list() ?? [] });
    this.sendAgents();
    const { timeline } = deps;
    if (timeline) {
      // The newest only: a host's every record (1000 per session) would make one message of megabytes.
      this.send({ type: 'timeline.snapshot', commands: timeline.list({ limit: TIMELINE_SNAPSHOT_RECORDS }) });
      subscriptions.add(timeline.onCommand((command) => this.send({ type: 'timeline.command', command })));
    }
    const { processes } = deps;
    if (processes) {
      this.send({ type: 'processes.leftovers', sessions: processes.leftovers() });
      subscriptions.add(processes.onLeftovers((sessions) => this.send({ type: 'processes.leftovers', sessions })));
    }
  }

  dispose(): void {
    if (this.closed) return;
    this.closed = true;
    this.subscriptions.dispose();
    this.streams.dispose();
    this.remotes?.dispose();
  }

  /** The handshake's session, attached as its `attach` message would be, with the same error if it went meanwhile. */
  private attachNamed(id: SessionId): void {
    try {
      this.streams.attach(id, null);
    } catch (error) {
      this.replyWithError(error);
    }
  }

  private onMessage(data: RawData, isBinary: boolean): void {
    if (isBinary) return this.error('invalid_message', 'binary frames are not accepted from the panel; send JSON text');
    let json: unknown;
    try {
      json = JSON.parse(rawToString(data));
    } catch {
      return this.error('invalid_message', 'frame is not valid JSON');
    }
    // Acks, several a MB while output streams, without the union's schema (see ackOf).
    const ack = ackOf(json);
    if (ack) {
      // A remote's session's ack is its relay's, like every message naming a remote's session (see handle).
      if (this.remotes?.route({ type: 'ack', ...ack })) return;
      return this.streams.ack(ack.id, ack.cursor);
    }
    const checked = checkJsonAs(PanelClientMessage, json);
    if (!checked.ok) return this.error('invalid_message', `invalid panel message: ${checked.error}`, requestIdOf(json));
    const message = checked.value;
    const requestId = 'requestId' in message ? message.requestId : undefined;
    try {
      this.handle(message);
    } catch (error) {
      this.replyWithError(error, requestId);
    }
  }

  /** The agents one can chat with, read afresh (agents.json may have changed). */
  private sendAgents(): void {
    const chats = this.deps.chats;
    if (!chats) return this.send({ type: 'chat.agents', agents: [], configPath: '', configError: 'chats with ACP agents are not available in this ptydeck' });
    chats.agents().then(
      ({ agents, configPath, configError }) =>
        this.send({
          type: 'chat.agents',
          agents: agents.map(({ name, command, args, origin }) => ({ name, command, args, origin })),
          configPath,
          configError,
        }),
      (error: unknown) => this.replyWithError(error),
    );
  }

  private handleChat(message: Extract<PanelClientMessage, { type: `chat.${string}` }>): void {
    const chats = this.deps.chats;
    if (message.type === 'chat.refresh_agents') return this.sendAgents();
    if (!chats) throw new ChatError('no_such_chat', 'chats with ACP agents are not available in this ptydeck');
    switch (message.type) {
      case 'chat.open':
        chats.open(message.agent, message.cwd, { panel: this, requestId: message.requestId }).catch((error: unknown) => this.replyWithError(error, message.requestId));
        return;
      case 'chat.prompt':
        return chats.prompt(message.chatId, message.text);
      case 'chat.cancel':
        chats.cancel(message.chatId).catch((error: unknown) => this.replyWithError(error));
        return;
      case 'chat.answer':
        return chats.answer(message.chatId, message.questionId, message.optionId);
      case 'chat.close':
        chats.close(message.chatId).catch((error: unknown) => this.replyWithError(error));
        return;
    }
  }

  private handleProcesses(message: Extract<PanelClientMessage, { type: `processes.${string}` }>): void {
    const processes = this.deps.processes;
    if (!processes) throw new PtyError('no_such_session', 'this ptydeck does not watch processes');
    const { requestId, id } = message;
    if (message.type === 'processes.query') {
      processes.query(id).then(
        (listed) => this.send({ type: 'processes.list', requestId, id, processes: listed }),
        (error: unknown) => this.replyWithError(error, requestId),
      );
      return;
    }
    processes.end(id, message.pids, message.kind).then(
      (result) => this.send({ type: 'processes.ended', requestId, id, ...result }),
      (error: unknown) => this.replyWithError(error, requestId),
    );
  }

  private handle(message: PanelClientMessage): void {
    const { service } = this.deps;
    if (message.type.startsWith('chat.')) return this.handleChat(message as Extract<PanelClientMessage, { type: `chat.${string}` }>);
    if (message.type === 'hosts.watch') return this.watchHosts();
    // A remote's session, or a tab to open on a remote: its relay's (this machine's own sessions are never routed there).
    if (this.remotes?.route(message)) return;
    if (message.type === 'port.forward') throw new PtyError('no_such_session', `no remote session ${message.id}`);
    if (message.type.startsWith('processes.')) return this.handleProcesses(message as Extract<PanelClientMessage, { type: `processes.${string}` }>);
    if (message.type === 'timeline.export') {
      const data = this.deps.timeline?.recording(message.id, message.format);
      if (data === undefined) throw new PtyError('no_such_session', `no recording of session ${message.id}`);
      return this.send({ type: 'timeline.exported', requestId: message.requestId, id: message.id, format: message.format, data });
    }
    switch (message.type) {
      case 'attach':
        return this.streams.attach(message.id, message.cursor);
      case 'detach':
        return this.streams.detach(message.id);
      case 'ack':
        return this.streams.ack(message.id, message.cursor);
      case 'input':
        return service.write(message.id, message.data);
      case 'resize':
        return this.resize(message.id, message.cols, message.rows);
      case 'create':
        // Always the user's own shell: the renderer never chooses what runs. Spawned in its turn (spawn-turns.ts).
        spawnTurnsOf(service)
          .run(() => service.create({ source: 'user', cols: message.cols, rows: message.rows, ...(this.deps.developerShell ? { shellArgs: this.deps.developerShell } : {}) }))
          .then(
            (info) => this.send({ type: 'created', requestId: message.requestId, info }),
            (error: unknown) => this.replyWithError(error, message.requestId),
          );
        return;
      case 'close': {
        const info = service.get(message.id);
        if (!info) throw new PtyError('no_such_session', `no such session: ${message.id}`);
        // An agent's live shell is only ended, its output kept for the agent; a lost one has nothing
        // left to end, and the developer closing it means it goes, its saved output with it.
        const done = info.source === 'user' || info.status === 'lost' ? service.remove(message.id) : service.kill(message.id);
        done.catch((error: unknown) => this.replyWithError(error));
        return;
      }
    }
  }

  private watchHosts(): void {
    if (this.remotes) return this.send({ type: 'hosts', hosts: this.remotes.hosts() });
    const open = this.deps.remotes;
    if (!open) return this.send({ type: 'hosts', hosts: [] });
    this.remotes = open({
      // A remote's recording is its ptydeck's word, whatever that program is: it gets the filter ours had (recording.ts).
      send: (message) => this.send(message.type === 'timeline.exported' ? { ...message, data: reviewedRecording(message.format, message.data) } : message),
      sendBinary: (bytes) => {
        if (!this.closed && this.ws.readyState === this.ws.OPEN) this.ws.send(bytes, { binary: true }, (error) => error && this.dispose());
      },
      isLocal: (id) => this.deps.service.get(id) !== undefined,
    });
  }

  /**
   * A panel fits a new tab as it opens, so a command that exits at once races
   * its first resize. The size of a finished terminal matters to no one: that
   * resize is dropped, not answered with an error the panel would show.
   */
  private resize(id: SessionId, cols: number, rows: number): void {
    try {
      this.deps.service.resize(id, cols, rows);
    } catch (error) {
      if (!(error instanceof PtyError && error.code === 'not_running')) throw error;
    }
  }

  private send(message: PanelServerMessage): void {
    if (this.closed || this.ws.readyState !== this.ws.OPEN) return;
    if (this.ws.bufferedAmount > CONTROL_BACKLOG_LIMIT) {
      // terminate, not close: a close frame would queue behind the backlog it is meant to free.
      this.ws.terminate();
      this.dispose();
      return;
    }
    this.ws.send(JSON.stringify(message), (error) => (error ? this.dispose() : this.streams.drained()));
  }

  private error(code: string, message: string, requestId?: string): void {
    this.send(requestId === undefined ? { type: 'error', code, message } : { type: 'error', code, message, requestId });
  }

  /** Tells the panel a request failed. */
  private replyWithError(error: unknown, requestId?: string): void {
    if (error instanceof PtyError || error instanceof ChatError) return this.error(error.code, error.message, requestId);
    this.error('internal', error instanceof Error ? error.message : String(error), requestId);
  }

  /** Logs a failure nobody awaits (nothing to reply to). */
  private report(error: unknown, context: string): void {
    (this.deps.reportError ?? reportError)(error, context);
  }
}

function rawToString(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return data.toString('utf8');
}

function requestIdOf(json: unknown): string | undefined {
  if (json && typeof json === 'object' && 'requestId' in json) {
    const id = (json as { requestId: unknown }).requestId;
    if (typeof id === 'string' && id.length <= 64) return id;
  }
  return undefined;
}
