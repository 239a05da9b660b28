// One panel's view of one remote: the remote's sessions tagged with its name, the panel's requests routed there, and every
// stream resumed from the byte after the last one passed on when the link comes back.
import type { AgentInfo, CommandRecord, PanelClientMessage, PanelServerMessage, SessionInfo } from '@ptydeck/contract';
import { startPortForward, type PortForward } from './port-forward.js';
import type { RelayedFrame, RemotePanelLink } from './remote-panel-link.js';

/** Where the relay hands what the panel is to hear. */
export interface RelaySink {
  send(message: PanelServerMessage): void;
  /** An output frame's bytes, as the remote's host encoded them (the ids are the remote's own, unchanged). */
  sendBinary(bytes: Uint8Array): void;
  /** Whether an id names a session of this machine, or of another remote: such an id from this remote is not taken. */
  taken(id: string, by: RemoteRelay): boolean;
  /** The link's state changed (for the `hosts` message). */
  changed(): void;
  /**
   * The cursor a panel asked a stream of `id` from before any remote had
   * said whose the id is (a reconnected panel's attach), taken at most once;
   * undefined when it asked for none.
   */
  claim(id: string): number | null | undefined;
  /** A connection's snapshot was taken in (the remote said which sessions it has). */
  answered(): void;
}

type Routed = Extract<PanelClientMessage, { id: string }>;

/**
 * Relays one remote's panel protocol to one local panel. Session ids stay the
 * remote's (random UUIDs this machine never sent there, so the remote cannot
 * name one of ours; one that is ours or another remote's anyway is refused),
 * and this machine's sessions are routed first, so nothing the remote says can
 * draw a local tab's input to it. Answers are passed on only for requests this
 * relay sent, so the remote cannot answer a local tab's `create`.
 */
export class RemoteRelay {
  private readonly sessions = new Map<string, SessionInfo>();
  private readonly agents = new Set<string>();
  /** Ids of this remote's sessions with processes left running (some no longer sessions there): `processes.end` for them goes here. */
  private leftovers = new Set<string>();
  /** Sessions the panel streams, with the cursor of the next byte it is owed (null: it asked for the screen). */
  private readonly viewers = new Map<string, number | null>();
  private readonly requests = new Set<string>();
  /** Ports of this remote's sessions forwarded to this machine, by `id:port`: each kept until its session ends or the port closes. */
  private readonly forwards = new Map<string, Promise<PortForward>>();
  private instance: string | undefined;
  /** Whether a connection's snapshot came at least once (the remote said which sessions it has). */
  private heard = false;
  private readonly subscriptions: (() => void)[] = [];

  constructor(
    readonly link: RemotePanelLink,
    private readonly sink: RelaySink,
  ) {
    this.subscriptions.push(
      link.onSnapshot((snapshot) => this.resume(snapshot)),
      link.onMessage((message) => this.receive(message)),
      link.onFrame((frame) => this.frame(frame)),
      link.onState(({ state }) => {
        if (state !== 'connected') this.requests.clear();
        sink.changed();
      }),
    );
  }

  get name(): string {
    return this.link.remote.name;
  }

  owns(id: string): boolean {
    return this.sessions.has(id);
  }

  /** Whether a panel message about `id` goes to this remote: one of its sessions, or one that left processes there. */
  routes(id: string): boolean {
    return this.sessions.has(id) || this.leftovers.has(id);
  }

  /** Whether this remote said which sessions it has, or never will (it cannot run ptydeck). */
  get settled(): boolean {
    return this.heard || this.link.state.state === 'failed';
  }

  /** A panel message for one of this remote's sessions (or a `create` naming it), sent there; input while the link is down is refused, not queued. */
  route(message: Routed | Extract<PanelClientMessage, { type: 'create' }>): void {
    switch (message.type) {
      case 'create': {
        this.requests.add(message.requestId);
        const { host: _host, ...create } = message;
        if (!this.link.send(create)) this.refuse(message.requestId);
        return;
      }
      case 'attach':
        this.viewers.set(message.id, message.cursor);
        this.link.send(message);
        return;
      case 'detach':
        this.viewers.delete(message.id);
        this.link.send(message);
        return;
      case 'processes.query':
      case 'processes.end':
      case 'timeline.export':
        this.requests.add(message.requestId);
        if (!this.link.send(message)) this.refuse(message.requestId);
        return;
      case 'port.forward':
        return this.forward(message.requestId, message.id, message.port);
      case 'input':
        // Stale keys are worse than none: the panel is told, as it is when its own socket is down.
        if (!this.link.send(message)) this.refuse();
        return;
      default:
        this.link.send(message);
    }
  }

  dispose(): void {
    for (const unsubscribe of this.subscriptions.splice(0)) unsubscribe();
    this.link.close();
    for (const key of [...this.forwards.keys()]) this.unforward(key);
  }

  /** Forwards a port the session is known to listen on (a page cannot name any other), once per session and port. */
  private forward(requestId: string, id: string, port: number): void {
    const info = this.sessions.get(id);
    const listening = info?.status === 'running' ? info.ports?.find((candidate) => candidate.port === port) : undefined;
    if (!listening) return this.sink.send({ type: 'error', code: 'no_such_port', message: `${this.name}: session ${id} does not listen on port ${port}`, requestId });
    const key = `${id}:${port}`;
    let forward = this.forwards.get(key);
    if (!forward) {
      forward = startPortForward(this.link.remote, listening, this.link.env, this.link.stateDir);
      this.forwards.set(key, forward);
      // ssh gone (the link dropped, or killed): the next click makes a new one.
      forward.then(
        (made) => void made.ended.then(() => this.forwards.get(key) === forward && this.forwards.delete(key)),
        () => this.forwards.get(key) === forward && this.forwards.delete(key),
      );
    }
    forward.then(
      (made) => this.sink.send({ type: 'port.forwarded', requestId, id, port, url: made.url }),
      (error: unknown) => this.sink.send({ type: 'error', code: 'port_forward_failed', message: (error as Error).message, requestId }),
    );
  }

  private unforward(key: string): void {
    const forward = this.forwards.get(key);
    if (!forward) return;
    this.forwards.delete(key);
    forward.then((made) => made.close(), () => {});
  }

  /** Ends the forwards of a session that ended or went, and of ports it no longer listens on. */
  private pruneForwards(id: string): void {
    const info = this.sessions.get(id);
    for (const key of [...this.forwards.keys()]) {
      const [of, port] = [key.slice(0, key.lastIndexOf(':')), Number(key.slice(key.lastIndexOf(':') + 1))];
      if (of !== id) continue;
      if (!info || info.status !== 'running' || !info.ports?.some((candidate) => candidate.port === port)) this.unforward(key);
    }
  }

  private refuse(requestId?: string): void {
    if (requestId !== undefined) this.requests.delete(requestId);
    const message = `${this.link.state.detail ?? `not connected to ${this.name} yet`}; try again when it is back`;
    this.sink.send(requestId === undefined ? { type: 'error', code: 'remote_unavailable', message } : { type: 'error', code: 'remote_unavailable', message, requestId });
  }

  private tag(info: SessionInfo): SessionInfo {
    return { ...info, host: this.name };
  }

  /**
   * A timeline record tagged with this remote's name, or null for one that is
   * not this remote's to report: a session of this machine's or another
   * remote's, or an id that is not its session's (the panel replaces records
   * by id, so that could overwrite another host's).
   */
  private record(command: CommandRecord): CommandRecord | null {
    if (!command.id.startsWith(`${command.session}:`) || this.sink.taken(command.session, this)) return null;
    return { ...command, host: this.name };
  }

  private tagAgent(agent: AgentInfo): AgentInfo {
    return { ...agent, host: this.name };
  }

  /**
   * A (new) connection's snapshot: the panel hears what changed while the link
   * was down, and each stream it had is asked for again from the byte after the
   * last one passed on, so none is lost or repeated. A restarted remote host
   * (another instance) has new logs: those streams start from its screen.
   */
  private resume(snapshot: Extract<PanelServerMessage, { type: 'snapshot' }>): void {
    const restarted = this.instance !== undefined && this.instance !== snapshot.instance;
    this.instance = snapshot.instance;
    this.heard = true;
    const present = new Set<string>();
    for (const info of snapshot.sessions) {
      if (this.sink.taken(info.id, this)) continue;
      present.add(info.id);
      // A panel that reconnected to this machine asked for the stream from its cursor before we knew it was ours.
      const asked = this.sink.claim(info.id);
      if (asked !== undefined) this.viewers.set(info.id, asked);
      const known = this.sessions.has(info.id);
      const tagged = this.tag(info);
      this.sessions.set(info.id, tagged);
      this.sink.send({ type: 'event', event: { type: known ? 'pty.updated' : 'pty.created', info: tagged } });
    }
    for (const id of [...this.sessions.keys()]) {
      if (present.has(id)) continue;
      this.sessions.delete(id);
      this.viewers.delete(id);
      this.sink.send({ type: 'event', event: { type: 'pty.removed', id } });
    }
    for (const key of [...this.forwards.keys()]) this.pruneForwards(key.slice(0, key.lastIndexOf(':')));
    const agents = new Set(snapshot.agents.map((agent) => agent.id));
    for (const id of this.agents) if (!agents.has(id)) this.sink.send({ type: 'agent.removed', id });
    for (const agent of snapshot.agents) if (!this.agents.has(agent.id)) this.sink.send({ type: 'agent.added', agent: this.tagAgent(agent) });
    this.agents.clear();
    for (const id of agents) this.agents.add(id);
    for (const [id, cursor] of this.viewers) {
      const resumeAt = restarted ? null : cursor;
      this.viewers.set(id, resumeAt);
      this.link.send({ type: 'attach', id, cursor: resumeAt });
    }
    this.sink.answered();
  }

  private frame(frame: RelayedFrame): void {
    // Only for a stream the panel has: a frame for any other is the remote's to keep.
    if (!this.viewers.has(frame.id)) return;
    this.viewers.set(frame.id, frame.next);
    this.sink.sendBinary(frame.bytes);
  }

  private receive(message: PanelServerMessage): void {
    switch (message.type) {
      case 'event': {
        const event = message.event;
        if (event.type === 'pty.removed') {
          if (!this.sessions.delete(event.id)) return;
          this.viewers.delete(event.id);
          this.pruneForwards(event.id);
          return this.sink.send(message);
        }
        if (this.sink.taken(event.info.id, this)) return;
        const tagged = this.tag(event.info);
        this.sessions.set(tagged.id, tagged);
        this.pruneForwards(tagged.id);
        return this.sink.send({ type: 'event', event: { ...event, info: tagged } });
      }
      case 'resync':
        if (!this.viewers.has(message.id)) return;
        this.viewers.set(message.id, message.cursor);
        return this.sink.send(message);
      case 'created':
        if (!this.requests.delete(message.requestId) || this.sink.taken(message.info.id, this)) return;
        this.sessions.set(message.info.id, this.tag(message.info));
        return this.sink.send({ ...message, info: this.tag(message.info) });
      case 'timeline.snapshot': {
        const commands = message.commands.map((command) => this.record(command)).filter((command): command is CommandRecord => command !== null);
        return this.sink.send({ type: 'timeline.snapshot', host: this.name, commands });
      }
      case 'timeline.command': {
        const command = this.record(message.command);
        if (command) this.sink.send({ type: 'timeline.command', command });
        return;
      }
      case 'processes.list':
      case 'processes.ended':
      case 'timeline.exported':
        if (this.requests.delete(message.requestId)) this.sink.send(message);
        return;
      case 'error':
        if (message.requestId !== undefined) {
          if (this.requests.delete(message.requestId)) this.sink.send(message);
          return;
        }
        return this.sink.send({ ...message, message: `${this.name}: ${message.message}` });
      case 'agent.added':
        this.agents.add(message.agent.id);
        return this.sink.send({ type: 'agent.added', agent: this.tagAgent(message.agent) });
      case 'agent.removed':
        if (this.agents.delete(message.id)) this.sink.send(message);
        return;
      case 'processes.leftovers': {
        // Only ids that are not this machine's or another remote's, each tagged with this remote's name.
        const sessions = message.sessions.filter((session) => !this.sink.taken(session.id, this)).map((session) => ({ ...session, host: this.name }));
        this.leftovers = new Set(sessions.map((session) => session.id));
        return this.sink.send({ type: 'processes.leftovers', host: this.name, sessions });
      }
      default:
        // Its hosts are that machine's panel's business; its chats too, for now (docs/cli.md says what showing them takes).
        return;
    }
  }
}
