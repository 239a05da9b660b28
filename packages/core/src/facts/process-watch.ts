// Keeps sessions' listening ports and leftover processes current while a panel watches, and nothing otherwise.
import { Emitter, type LeftoverKind, type LeftoverSession, type ListeningPort, type SessionId, type SessionProcess } from '@ptydeck/contract';
import type { LabelReader } from '../pty/session-labels.js';
import { PtyError, type PtyService } from '../pty/types.js';
import { endProcesses } from '../pty/end-processes.js';
import { SessionBook, type BookedSession } from './session-book.js';
import type { SessionFactsWriter } from './session-facts.js';
import { processesKnown } from '../proc/proc-fs.js';
import { snapshotSession, snapshotSessions, snapshotSessionsInTurns, stillRunning, type OwnedProcess, type SessionRef, type SessionSnapshot, type SnapshotOptions } from '../pty/session-processes.js';
import { listeningSockets, listeningSocketsOffThread, tcpFingerprint, type ListeningSocket } from '../proc/tcp-table.js';
import { nextLoopTurn } from '../common/loop-turn.js';

/** How long a process the panel ends gets after SIGTERM before SIGKILL. */
const END_GRACE_MS = 3000;

/**
 * How long the chats' orphans found stand for them. Finding them reads every
 * process's environment, which was most of a look's time (and `ptydeck ls`
 * takes a look: bench figure 12), while they come only when a host dies, and
 * the next host's sweep (which asks for a rescan) looks for them. Each found
 * is checked to run at every look meanwhile, and one is only ever ended as a
 * search made for the request finds it (end).
 */
const ORPHANS_MAX_AGE_MS = 10_000;

export interface ProcessWatchOptions {
  /** Least time between two looks. Default 2000 ms. */
  intervalMs?: number;
  /** The process table scan (seam for tests). Default snapshotSessions. */
  scan?: (labels: LabelReader, sessions: readonly SessionRef[], options: SnapshotOptions) => Map<string, SessionSnapshot> | undefined;
  /**
   * The scan of a look the timer takes, the table read a few ms at a time between turns of the loop
   * (seam for tests). Default snapshotSessionsInTurns with nextLoopTurn between: a look runs from a
   * timer, where one setImmediate would run the next slice in the same pass of the loop. A look the first
   * watcher takes (watch()) scans in one turn, so what it is sent next is current.
   */
  scanInTurns?: (labels: LabelReader, sessions: readonly SessionRef[], options: SnapshotOptions) => Promise<Map<string, SessionSnapshot> | undefined>;
  /**
   * What dead hosts' chats of this host's id left running now, each with its
   * chat's id (chats/orphaned-agents.ts): listed as a chat's leftovers and
   * the only processes of a chat the panel may end. None without it.
   */
  chatOrphans?: () => (OwnedProcess & { chatId: string })[];
}

export interface EndedProcesses {
  ended: { pid: number; command: string }[];
  notEnded: { pid: number; command: string }[];
  refused: number[];
}

/** Every this many looks, the socket tables are read even though the TCP socket count did not move (20 s at the default interval). */
export const TABLES_EVERY_LOOKS = 10;

/**
 * Keeps each session's listening ports (SessionInfo.ports, through
 * SessionFacts.setPorts) and the processes ended sessions left running, while at
 * least one panel watches: with none, nothing is read. What a session the
 * service no longer has left (a closed tab's `nohup` job) is found by the id
 * in its environment, so it stays listed whether or not the session's name is
 * still remembered, after a host restart too; what another host's sessions
 * left (another PTYDECK_HOST_ID) is neither listed nor ended. It looks at most every
 * `intervalMs`, on a timer of its own, never on the keystroke or output path,
 * and a look is cheap when nothing changed: the process table is scanned only
 * when the count of TCP sockets changed (tcpFingerprint, 0.06 ms; the tables
 * are read at every TABLES_EVERY_LOOKS-th look too) and the
 * kernel's listening sockets then differ from the last look's, when a session
 * ended, or when a process it shows (a port's holder, a leftover) is gone.
 */
export class ProcessWatch {
  private readonly book: SessionBook;
  private readonly leftoverEmitter = new Emitter<LeftoverSession[]>({ name: 'processes.leftovers' });
  private readonly intervalMs: number;
  private readonly scan: NonNullable<ProcessWatchOptions['scan']>;
  private readonly scanInTurns: NonNullable<ProcessWatchOptions['scanInTurns']>;
  /** Bumped by every scan begun: a scan in turns that a later one overtook (a watch()'s) does not apply its older view. */
  private scanGeneration = 0;
  /** A timer look's scan in turns is under way: the next look is scheduled once it is over. */
  private looking = false;
  private readonly chatOrphans: NonNullable<ProcessWatchOptions['chatOrphans']>;
  private watchers = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lastLook = Number.NEGATIVE_INFINITY;
  /** Something the socket tables cannot show changed (a session ended, a panel asked, one came): scan at the next look. */
  private dirty = true;
  private fingerprint: string | undefined;
  private listening: Set<string> | undefined;
  /** The processes the panel is shown (ports' holders, leftovers): one gone is news. */
  private shown: OwnedProcess[] = [];
  private current: LeftoverSession[] = [];
  /** The chats' orphans as last searched for, and when. */
  private orphans: { at: number; found: (OwnedProcess & { chatId: string })[] } | undefined;
  private disposed = false;
  private scans = 0;
  private looks = 0;

  /** Fires with every session's leftovers when they change. */
  readonly onLeftovers = this.leftoverEmitter.on;

  constructor(
    private readonly service: PtyService,
    /** Where each session's ports are told, for the panels. */
    private readonly facts: SessionFactsWriter,
    options: ProcessWatchOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 2000;
    this.scan = options.scan ?? snapshotSessions;
    this.scanInTurns =
      options.scanInTurns ?? (options.scan ? async (...args) => this.scan(...args) : (labels, sessions, snapshot) => snapshotSessionsInTurns(labels, sessions, snapshot, nextLoopTurn));
    this.chatOrphans = options.chatOrphans ?? (() => []);
    this.book = new SessionBook(service, () => (this.dirty = true));
  }

  /** How often it looked and how often that took a scan of the process table. */
  get stats(): { looks: number; scans: number } {
    return { looks: this.looks, scans: this.scans };
  }

  /** The leftovers at the last scan. */
  leftovers(): LeftoverSession[] {
    return this.current;
  }

  /**
   * A panel watches until the returned function is called; the first one
   * starts the looks. When a look is due (the interval since the last passed)
   * it is taken before watch() returns, so what the first watcher is sent next
   * (a panel's snapshot, `ptydeck ls`) carries ports as they are now, not as
   * the last watcher left them.
   */
  watch(): () => void {
    let watching = true;
    this.watchers++;
    if (this.watchers === 1) {
      this.dirty = true;
      if (!this.disposed && performance.now() >= this.lastLook + this.intervalMs) this.look();
      this.schedule();
    }
    return () => {
      if (!watching) return;
      watching = false;
      this.watchers--;
      if (this.watchers === 0) this.stop();
    };
  }

  /**
   * The session's processes now (a scan of its own, read between turns of the loop as a timer's look is, so a
   * panel's question does not hold every other session's keystrokes while the whole table is read); null where
   * the system cannot say.
   */
  async query(id: SessionId): Promise<SessionProcess[] | null> {
    const session = this.require(id);
    const snapshots = await snapshotSessionsInTurns(this.service.labels, [session.ref], {}, nextLoopTurn);
    return snapshots?.get(id)?.processes.map(processField) ?? null;
  }

  /**
   * Ends those of `pids` that the session owns now (with `kind` 'chat': that
   * the dead host's chat `id` left, of this host's id), as a scan made for
   * this request finds them (never on the page's word), and says what ended.
   */
  async end(id: SessionId, pids: readonly number[], kind: LeftoverKind = 'session'): Promise<EndedProcesses> {
    const owned = kind === 'chat' ? this.chatOrphans().filter((proc) => proc.chatId === id) : (snapshotSession(this.service.labels, this.require(id).ref)?.processes ?? []);
    const asked = new Set(pids);
    const targets = owned.filter((proc) => asked.has(proc.pid));
    const refused = [...asked].filter((pid) => !targets.some((proc) => proc.pid === pid));
    try {
      const survivors = await endProcesses(targets, END_GRACE_MS, false);
      const survived = new Set(survivors.map((proc) => proc.pid));
      return {
        ended: targets.filter((proc) => !survived.has(proc.pid)).map(named),
        notEnded: survivors.map(named),
        refused,
      };
    } finally {
      this.rescan();
    }
  }

  /** Something the socket tables cannot show changed (a sweep of a dead host's chats ended): scan at the next look. */
  rescan(): void {
    this.dirty = true;
    this.orphans = undefined;
    if (this.watchers > 0) this.schedule();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.stop();
    this.book.dispose();
    this.leftoverEmitter.clear();
  }

  private require(id: SessionId): BookedSession {
    const session = this.book.get(id) ?? (this.current.some((leftover) => leftover.id === id && leftover.kind !== 'chat') ? this.unnamed(id) : undefined);
    if (!session) throw new PtyError('no_such_session', `no session with id '${id}' (or nothing of it is known any more)`);
    return session;
  }

  private schedule(): void {
    if (this.disposed || this.timer !== undefined || this.looking) return;
    const wait = Math.max(0, this.lastLook + this.intervalMs - performance.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.looking = true;
      void this.lookInTurns().finally(() => {
        this.looking = false;
        if (this.watchers > 0) this.schedule();
      });
    }, wait);
    this.timer.unref?.();
  }

  private stop(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private look(): void {
    if (this.due()) this.scanNow();
  }

  /**
   * A timer's look: the socket tables read on libuv's thread pool (due), then its scan a slice at a time between
   * turns of the loop (see scanInTurns).
   */
  private async lookInTurns(): Promise<void> {
    if (!(await this.dueOffThread())) return;
    this.dirty = false;
    const generation = ++this.scanGeneration;
    const sessions = this.book.sessions();
    const snapshots = await this.scanInTurns(this.service.labels, sessions.map((session) => session.ref), { outlived: true });
    if (this.disposed || generation !== this.scanGeneration) return;
    this.scanned(sessions, snapshots);
  }

  /** Counts a look and says whether it is to scan, the socket tables (when they are due) read in this turn. */
  private due(): boolean {
    this.counted();
    if (!processesKnown()) return false;
    const fingerprint = tcpFingerprint();
    const changed = this.tablesDue(fingerprint) && this.listened(fingerprint, listeningSockets());
    return changed || this.scanAsked();
  }

  /**
   * due() for a timer's look, the socket tables read on libuv's thread pool (listeningSocketsOffThread): read
   * in the timer's turn, they held the loop 2 to 5 ms (single samples of 35 to 107 ms at load 29) at nearly
   * every look, other work's connections moving the TCP socket count (bench figure 15's notes). A look a
   * panel's watch() took meanwhile has looked for it: then this one does not.
   */
  private async dueOffThread(): Promise<boolean> {
    this.counted();
    if (!processesKnown()) return false;
    const fingerprint = tcpFingerprint();
    let changed = false;
    if (this.tablesDue(fingerprint)) {
      const generation = this.scanGeneration;
      const read = await listeningSocketsOffThread();
      if (this.disposed || generation !== this.scanGeneration) return false;
      changed = this.listened(fingerprint, read);
    }
    return changed || this.scanAsked();
  }

  private counted(): void {
    this.lastLook = performance.now();
    this.looks++;
  }

  /** A scan is due whatever the tables say: something they cannot show changed, or a process shown is gone. */
  private scanAsked(): boolean {
    return this.dirty || this.shown.some((proc) => !stillRunning(proc));
  }

  /**
   * Whether the socket tables are to be read at this look: only when the socket count moved, and at every
   * TABLES_EVERY_LOOKS-th look (a listener that opened while another socket closed leaves the count as it
   * was, and would otherwise stay unseen, and the closed one shown, until it next moves).
   */
  private tablesDue(fingerprint: string | undefined): boolean {
    const counted = this.looks % TABLES_EVERY_LOOKS !== 0;
    return !(counted && this.listening !== undefined && fingerprint !== undefined && fingerprint === this.fingerprint);
  }

  /** Keeps the tables' listening sockets as `read` at `fingerprint`; whether one opened or closed since the last read. */
  private listened(fingerprint: string | undefined, read: Map<string, ListeningSocket> | undefined): boolean {
    this.fingerprint = fingerprint;
    const inodes = new Set(read?.keys() ?? []);
    const changed = this.listening === undefined || inodes.size !== this.listening.size || [...inodes].some((inode) => !this.listening!.has(inode));
    this.listening = inodes;
    return changed;
  }

  private scanNow(): void {
    this.dirty = false;
    this.scanGeneration++;
    const sessions = this.book.sessions();
    const snapshots = this.scan(
      this.service.labels,
      sessions.map((session) => session.ref),
      { outlived: true },
    );
    this.scanned(sessions, snapshots);
  }

  /** What a scan of `sessions` found: their ports told, the leftovers fired if they changed. */
  private scanned(sessions: BookedSession[], snapshots: Map<string, SessionSnapshot> | undefined): void {
    this.scans++;
    if (!snapshots) return;
    const ours = new Set(sessions.map((session) => session.ref.id));
    const leftovers: LeftoverSession[] = [];
    const shown: OwnedProcess[] = [];
    for (const [id, snapshot] of snapshots) {
      const session = this.book.get(id) ?? this.unnamed(id);
      const ports = snapshot.ports.map((port): ListeningPort => ({
        port: port.port,
        address: port.address,
        pid: port.pid,
        command: snapshot.processes.find((proc) => proc.pid === port.pid)?.command ?? '',
      }));
      shown.push(...snapshot.processes.filter((proc) => ports.some((port) => port.pid === proc.pid)));
      if (ours.has(id)) this.facts.setPorts(id, ports);
      if (session.ref.running || snapshot.processes.length === 0) continue;
      shown.push(...snapshot.processes);
      leftovers.push({ id, title: session.title, source: session.source, ownerName: session.ownerName, known: session.known, processes: snapshot.processes.map(processField), ports });
    }
    for (const [chatId, processes] of byChat(this.currentOrphans())) {
      shown.push(...processes);
      leftovers.push({ id: chatId, kind: 'chat', title: "a chat's agent", source: 'agent', ownerName: null, known: false, processes: processes.map(processField), ports: [] });
    }
    this.book.retainDeparted(new Set(leftovers.map((leftover) => leftover.id)));
    this.shown = shown;
    if (JSON.stringify(leftovers) === JSON.stringify(this.current)) return;
    this.current = leftovers;
    this.leftoverEmitter.fire(leftovers);
  }

  /** The chats' orphans: searched for when the last search is ORPHANS_MAX_AGE_MS old or a rescan asked, else those it found that still run. */
  private currentOrphans(): (OwnedProcess & { chatId: string })[] {
    const now = performance.now();
    if (this.orphans && now - this.orphans.at < ORPHANS_MAX_AGE_MS) {
      this.orphans.found = this.orphans.found.filter(stillRunning);
      return this.orphans.found;
    }
    this.orphans = { at: now, found: this.chatOrphans() };
    return this.orphans.found;
  }

  /**
   * A session whose processes carry its id but whose name is not remembered:
   * a lost one (the service has it, with no process of its own), or one
   * closed past the book's bound or under an earlier host.
   */
  private unnamed(id: SessionId): BookedSession {
    const info = this.service.get(id);
    return {
      ref: { id, pid: 0, running: false },
      title: info?.title ?? 'closed terminal',
      source: info?.source ?? 'user',
      ownerName: info?.ownerName ?? null,
      known: info !== undefined,
    };
  }
}

function processField({ pid, command, startedAt }: OwnedProcess): SessionProcess {
  return { pid, command, startedAt: Math.round(startedAt) };
}

/** Processes by the chat they are of, in the order found. */
function byChat(processes: readonly (OwnedProcess & { chatId: string })[]): Map<string, OwnedProcess[]> {
  const chats = new Map<string, OwnedProcess[]>();
  for (const { chatId, ...proc } of processes) chats.set(chatId, [...(chats.get(chatId) ?? []), proc]);
  return chats;
}

function named({ pid, command }: OwnedProcess): { pid: number; command: string } {
  return { pid, command };
}
