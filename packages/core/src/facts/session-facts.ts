// What other layers learn about sessions (prompts, shell state, ports), merged with the PTY service's own record for the panels.
import { DisposableStore, type Attention, type PtyEventOf, type ErrorReporter, type ListeningPort, type SessionId, type SessionInfo, type ShellActivity } from '@ptydeck/contract';
import { EventHub } from '../pty/event-hub.js';
import type { PtyService, PtySessionInfo } from '../pty/types.js';

/** The fields of SessionInfo that are learned outside the PTY service. */
export type LearnedFacts = Pick<SessionInfo, 'attention' | 'shell' | 'ports'>;

/** The service's lifecycle events, each carrying the session's info with what was learned of it (the panel protocol's events). */
export type SessionFactsEventMap = { [K in 'pty.created' | 'pty.updated' | 'pty.exited' | 'pty.removed']: PtyEventOf<K> };

/**
 * The PTY service knows what it spawned: size, title, status. What runs in a
 * session is learned by others: the agent tool sees a program wait for input
 * and follows the shell's marks, the process watch finds the ports its
 * processes listen on. They say it here; this keeps it beside the service's
 * record and tells whoever shows sessions (the panels, `ptydeck ls`) through
 * the same `pty.*` events, each with the whole info, so a viewer holds one
 * record per session whatever changed it.
 *
 * A field is present once someone said something of it (null: they know
 * nothing, or nothing is true now), as the panel always received them.
 */
export class SessionFacts {
  private readonly learned = new Map<SessionId, LearnedFacts>();
  private readonly events: EventHub<SessionFactsEventMap>;
  private readonly subscriptions = new DisposableStore();

  constructor(
    private readonly service: PtyService,
    onListenerError?: ErrorReporter,
  ) {
    this.events = new EventHub(onListenerError);
    for (const info of service.list()) this.noteCreated(info);
    this.subscriptions.add(
      service.on('pty.created', (event) => {
        this.noteCreated(event.info);
        this.events.emit('pty.created', { ...event, info: this.merged(event.info) });
      }),
    );
    this.subscriptions.add(service.on('pty.updated', (event) => this.events.emit('pty.updated', { ...event, info: this.merged(event.info) })));
    this.subscriptions.add(
      service.on('pty.exited', (event) => {
        // An exited program asks nobody for anything.
        this.learn(event.id, { attention: null });
        this.events.emit('pty.exited', { ...event, info: this.merged(event.info) });
      }),
    );
    this.subscriptions.add(
      service.on('pty.removed', (event) => {
        this.learned.delete(event.id);
        this.events.emit('pty.removed', event);
      }),
    );
  }

  /**
   * Says whether the session's program is waiting for a person's input (or
   * null when it no longer is); emits `pty.updated` on a change, so every
   * viewer shows the same thing. Ignored for a session that is not running.
   */
  setAttention(id: SessionId, attention: Attention | null): void {
    const info = this.service.get(id);
    if (info?.status !== 'running') return;
    const current = this.learned.get(id)?.attention ?? null;
    if (current === attention || (current && attention && current.since === attention.since && current.prompt === attention.prompt)) return;
    this.learn(id, { attention });
    this.events.emit('pty.updated', { type: 'pty.updated', info: this.merged(info) });
  }

  /**
   * Says what the session's shell is doing, as the agent tool follows it
   * through the shell's marks (null: nobody knows); emits `pty.updated` on a
   * change. Ignored for a session that is not running.
   */
  setShellActivity(id: SessionId, shell: ShellActivity | null): void {
    const info = this.service.get(id);
    if (info?.status !== 'running') return;
    const current = this.learned.get(id)?.shell ?? null;
    if (current?.state === shell?.state && current?.lastExitCode === shell?.lastExitCode) return;
    this.learn(id, { shell: shell && { ...shell } });
    this.events.emit('pty.updated', { type: 'pty.updated', info: this.merged(info) });
  }

  /**
   * Says which TCP ports the session's processes listen on (null: this system
   * cannot say), as the process watch finds them; emits `pty.updated` only when
   * they changed. Kept for an exited session too (what it left running may
   * still listen); ignored for a display session, which runs nothing of ours.
   */
  setPorts(id: SessionId, ports: readonly ListeningPort[] | null): void {
    const info = this.service.get(id);
    if (!info || info.readOnly) return;
    const current = this.learned.get(id)?.ports;
    if (current !== undefined && samePorts(current, ports)) return;
    this.learn(id, { ports: ports && ports.map((port) => ({ ...port })) });
    this.events.emit('pty.updated', { type: 'pty.updated', info: this.merged(info) });
  }

  /** The session's info with what was learned of it. */
  get(id: SessionId): SessionInfo | undefined {
    const info = this.service.get(id);
    return info && this.merged(info);
  }

  /** Every session's, in creation order. */
  list(): SessionInfo[] {
    return this.service.list().map((info) => this.merged(info));
  }

  on<K extends keyof SessionFactsEventMap>(event: K, listener: (event: SessionFactsEventMap[K]) => void): () => void {
    return this.events.on(event, listener);
  }

  dispose(): void {
    this.subscriptions.dispose();
    this.events.clear();
    this.learned.clear();
  }

  private noteCreated(info: PtySessionInfo): void {
    // What an earlier host knew of a restored session's prompts and shell was true of processes that are gone.
    if (info.restored) this.learned.set(info.id, { attention: null, shell: null });
  }

  private learn(id: SessionId, facts: LearnedFacts): void {
    this.learned.set(id, { ...this.learned.get(id), ...facts });
  }

  private merged(info: PtySessionInfo): SessionInfo {
    const facts = this.learned.get(info.id);
    return facts ? { ...info, ...facts } : info;
  }
}

function samePorts(a: readonly ListeningPort[] | null, b: readonly ListeningPort[] | null): boolean {
  if (a === null || b === null) return a === b;
  return a.length === b.length && a.every((port, i) => port.port === b[i]!.port && port.address === b[i]!.address && port.pid === b[i]!.pid && port.command === b[i]!.command);
}

/** What a layer that learns of sessions needs to say it. */
export type SessionFactsWriter = Pick<SessionFacts, 'setAttention' | 'setShellActivity' | 'setPorts'>;
