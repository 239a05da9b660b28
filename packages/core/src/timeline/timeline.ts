/**
 * The command timeline (issue 36): every session's commands, as its shell's
 * keyed marks report them, with who typed each, and when each chunk of
 * output arrived. It follows the PTY service from above (its events and its
 * one scan of each session's output) and holds nothing the log does not:
 * a record whose output the log dropped goes with it. A closed session is
 * the exception: its records stay (bounded, oldest first) without output, so
 * closing its shell does not take back what an agent ran.
 */
import { DisposableStore, Emitter, MAX_CLOSED_TITLE_CHARS, commandFailed, reportError, type CommandRecord, type SessionId, type SessionInfo, type ShellActivity } from '@ptydeck/contract';
import type { PtyService } from '../pty/types.js';
import { announcesShellKey } from '../terminal-tool/index.js';
import { ChunkTimes } from './chunk-times.js';
import { buildRecording, type RecordingFormat, type Resize } from './recording.js';
import { SessionCommands } from './session-commands.js';

export interface TimelineOptions {
  /** Command records kept per session; the oldest go first. Default 1000. */
  maxRecordsPerSession?: number;
  /** Follow the marks and keep records. Default true (off only to measure what they cost). */
  records?: boolean;
  /** Keep when each chunk arrived. Default true. */
  chunkTimes?: boolean;
  /** Records of closed sessions kept, across them all; the oldest go first. Default 5000. */
  maxClosedRecords?: number;
}

export interface TimelineQuery {
  /** Only these sessions (the agent tool's fence: its own). */
  sessions?: ReadonlySet<SessionId>;
  failedOnly?: boolean;
  /** Epoch ms: commands that started at or after it. */
  since?: number;
  /** Matched against the command line. */
  pattern?: RegExp;
  /** The newest this many. */
  limit?: number;
}

/** What the session store keeps of the closed sessions: their records, without output. */
export interface PersistedClosedCommands {
  version: 1;
  commands: readonly CommandRecord[];
}

/** What the session store keeps of a session's timeline, beside its output. */
export interface PersistedTimeline {
  version: 1;
  commands: CommandRecord[];
  /** ChunkTimes.encode(). */
  times: number[];
  /** The terminal's size as the kept output begins, and its resizes after. */
  size?: { cols: number; rows: number };
  resizes?: Resize[];
}

interface Followed {
  readonly commands: SessionCommands;
  readonly times: ChunkTimes;
  readonly stop: () => void;
  /** Changes with each record change: the store writes again when it moved. */
  revision: number;
  /** The size the session started with, and each resize since, bounded. */
  size: { cols: number; rows: number };
  resizes: Resize[];
  /** The session's title as it last was: its records keep it once it is closed. */
  title: string;
  /**
   * The agent connection that made the session on this host, or null (the developer's, one taken back from disk, or
   * none): its records stay that agent's once closed.
   */
  readonly owner: string | null;
  /** What onShellActivity last told of the session's shell. */
  activity?: ShellActivity;
  /** Taken back from an earlier host's record on disk. */
  restored: boolean;
}

/** Resizes kept per session; a dragged window makes many. */
const MAX_RESIZES = 1000;

/** An OSC payload worth decoding: 133;, 633; or ptydeck's 6973; (the shell's key). */
function mayBeMark(payload: Uint8Array): boolean {
  if (payload.length < 5) return false;
  const [a, b, c, d] = payload;
  // "133;" / "633;"
  if ((a === 0x31 || a === 0x36) && b === 0x33 && c === 0x33 && d === 0x3b) return true;
  // "6973"
  return a === 0x36 && b === 0x39 && c === 0x37 && d === 0x33;
}

export class Timeline {
  private readonly sessions = new Map<SessionId, Followed>();
  private readonly subscriptions = new DisposableStore();
  private readonly changed = new Emitter<CommandRecord>({ name: 'timeline.command' });
  private readonly shellChanged = new Emitter<{ session: SessionId; activity: ShellActivity }>({ name: 'timeline.shell' });
  private readonly maxRecords: number;
  private readonly records: boolean;
  private readonly chunkTimes: boolean;
  /** Records of closed sessions, in the order they closed; bounded by maxClosed. */
  private closed: CommandRecord[] = [];
  private readonly maxClosed: number;
  /** Moves with every change to `closed`: the store writes them again when it moved. */
  private closedChanges = 0;
  /**
   * The agent connection each closed agent session with records belonged to, so that agent's
   * terminal_history still lists them. This host's own knowledge, never stored: closed records an
   * earlier host left on disk (anything running as the user could have written them) belong to no agent.
   */
  private readonly closedOwners = new Map<SessionId, string>();

  constructor(
    private readonly service: PtyService,
    options: TimelineOptions = {},
  ) {
    this.maxRecords = options.maxRecordsPerSession ?? 1000;
    this.records = options.records ?? true;
    this.chunkTimes = options.chunkTimes ?? true;
    this.maxClosed = options.maxClosedRecords ?? 5000;
    for (const info of service.list()) this.follow(info);
    this.subscriptions.add(service.on('pty.created', (event) => this.follow(event.info)));
    if (this.chunkTimes) {
      this.subscriptions.add(
        service.on('pty.data', (event) => {
          this.sessions.get(event.id)?.times.arrived(event.cursor, Date.now());
        }),
      );
    }
    if (this.records) {
      this.subscriptions.add(service.on('pty.input', (event) => this.sessions.get(event.id)?.commands.input(event.from)));
      this.subscriptions.add(
        service.on('pty.exited', (event) => {
          const followed = this.sessions.get(event.id);
          if (!followed) return;
          this.publish(followed, followed.commands.exited(this.service.scanPosition(event.id).end, Date.now(), event.exitCode, event.signal));
        }),
      );
    }
    this.subscriptions.add(service.on('pty.updated', (event) => this.updated(event.info)));
    this.subscriptions.add(
      service.on('pty.removed', (event) => {
        const followed = this.sessions.get(event.id);
        if (!followed) return;
        followed.stop();
        this.sessions.delete(event.id);
        this.keepClosed(followed);
      }),
    );
  }

  /** A command started or ended; returns the unsubscribe. */
  readonly onCommand = this.changed.on;

  /**
   * A session's shell, as its keyed marks say, went to its prompt or started
   * a command line (SessionCommands.activity); returns the unsubscribe. What
   * the agent tool tells of its own shells, this tells of any, the developer's
   * tabs included.
   */
  readonly onShellActivity = this.shellChanged.on;

  /** Commands across sessions, in the order they started. */
  list(query: TimelineQuery = {}): CommandRecord[] {
    const out: CommandRecord[] = [];
    const take = (record: CommandRecord) => {
      if (query.failedOnly && (record.status === 'running' || !commandFailed(record))) return;
      if (query.since !== undefined && record.startedAt < query.since) return;
      if (query.pattern && !query.pattern.test(record.command ?? '')) return;
      out.push(record);
    };
    for (const [id, followed] of this.sessions) {
      if (query.sessions && !query.sessions.has(id)) continue;
      this.trim(id, followed);
      for (const record of followed.commands.all) take(record);
    }
    // A closed session's records go to no agent: its terminals are open ones. One naming an open session (a restored
    // one's, planted on disk, or left by a host killed as it closed it) would pass in its owner's history as its own.
    for (const record of this.closed) if (!query.sessions || (query.sessions.has(record.session) && !this.sessions.has(record.session))) take(record);
    out.sort((a, b) => a.startedAt - b.startedAt || a.output.start - b.output.start);
    return query.limit !== undefined && out.length > query.limit ? out.slice(out.length - query.limit) : out;
  }

  /** One record by id, or undefined (also when its output is gone, except a closed session's: see `closed`). */
  get(id: string): CommandRecord | undefined {
    const session = id.slice(0, id.lastIndexOf(':'));
    const followed = this.sessions.get(session);
    if (!followed) return this.closed.find((record) => record.id === id);
    this.trim(session, followed);
    return followed.commands.all.find((record) => record.id === id);
  }

  /**
   * The cursors in [from, to] where a session's commands' outputs start or
   * end, ascending: where its screen notes its place as it parses (a
   * resync's gutter marks). From the newest back, so parsing at the log's
   * head looks at a record or two.
   */
  commandCursors(session: SessionId, from: number, to: number): number[] {
    const records = this.sessions.get(session)?.commands.all ?? [];
    const cursors: number[] = [];
    for (let i = records.length - 1; i >= 0; i--) {
      const { start, end } = records[i]!.output;
      if (end !== null && end >= from && end <= to) cursors.push(end);
      if (start >= from && start <= to) cursors.push(start);
      // A session's commands follow one another: everything older ends before this one starts.
      if (start < from) break;
    }
    return [...new Set(cursors)].sort((a, b) => a - b);
  }

  /** When each chunk of a session's output arrived; undefined for a session not followed. */
  timesOf(session: SessionId): ChunkTimes | undefined {
    return this.sessions.get(session)?.times;
  }

  /** The session's recording (asciicast v3, v2, or plain text); undefined for a session not followed. */
  recording(session: SessionId, format: RecordingFormat): string | undefined {
    const followed = this.sessions.get(session);
    const info = this.service.get(session);
    if (!followed || !info) return undefined;
    this.trim(session, followed);
    const read = this.service.read(session);
    const resizes = followed.resizes.filter((resize) => resize.cursor >= read.cursor);
    const before = followed.resizes.filter((resize) => resize.cursor < read.cursor).at(-1);
    return buildRecording(
      {
        info,
        bytes: read.data,
        start: read.cursor,
        times: followed.times.entries(read.cursor),
        commands: followed.commands.all,
        resizes,
        size: before ? { cols: before.cols, rows: before.rows } : followed.size,
      },
      format,
    );
  }

  /** A change counter for the store: it moves with every record and resize. */
  revisionOf(session: SessionId): number {
    return this.sessions.get(session)?.revision ?? 0;
  }

  /** A change counter for the store: it moves with every chunk time (every 10 ms of a flood). */
  timesRevisionOf(session: SessionId): number {
    return this.sessions.get(session)?.times.revision ?? 0;
  }

  /** What the store keeps of a session's timeline: records and times for output from `from` on. */
  persisted(session: SessionId, from = 0): PersistedTimeline | null {
    const followed = this.sessions.get(session);
    if (!followed) return null;
    return {
      version: 1,
      commands: followed.commands.all.filter((record) => record.output.start >= from),
      times: followed.times.encode(from),
      size: followed.size,
      resizes: followed.resizes,
    };
  }

  /** A change counter for the store's file of closed sessions' records. */
  closedRevision(): number {
    return this.closedChanges;
  }

  /** The closed sessions whose records are still kept that `owner` (an agent connection) made on this host. */
  closedSessionsOf(owner: string): SessionId[] {
    return [...this.closedOwners].filter(([, of]) => of === owner).map(([session]) => session);
  }

  /** What the store keeps of the closed sessions: their records. */
  persistedClosed(): PersistedClosedCommands {
    return { version: 1, commands: this.closed };
  }

  /**
   * The closed sessions' records an earlier host kept (checked by the
   * store): before this host's own, within the same bound.
   */
  restoreClosed(saved: readonly CommandRecord[]): void {
    const known = new Set(this.closed.map((record) => record.id));
    // Under an id of the host's own form, `<session>:<n>`.
    const earlier = saved
      .filter((record) => record.closed !== undefined && !known.has(record.id) && record.id.startsWith(`${record.session}:`))
      .map((record): CommandRecord => ({ ...record, closed: { ...record.closed!, restored: true } }));
    this.closed = [...earlier, ...this.closed].slice(-this.maxClosed);
    this.closedChanges++;
    for (const record of earlier) this.changed.fire(record);
  }

  /**
   * A session an earlier host kept, just restored in the service: its records
   * come back (one that was running ends `lost`) with its chunk times.
   * `saved` is what the store read: untrusted, checked by the caller's schema.
   */
  restore(session: SessionId, saved: PersistedTimeline): void {
    const followed = this.sessions.get(session);
    if (!followed) return;
    const next: Followed = { ...followed, times: ChunkTimes.decode(saved.times), size: saved.size ?? followed.size, resizes: saved.resizes ?? [] };
    this.sessions.set(session, next);
    for (const record of next.commands.restore(saved.commands)) this.changed.fire(record);
    next.revision++;
    this.trim(session, next);
  }

  dispose(): void {
    this.subscriptions.dispose();
    for (const followed of this.sessions.values()) followed.stop();
    this.sessions.clear();
    this.closed = [];
    this.closedOwners.clear();
  }

  /**
   * A session was closed: its records stay, marked with its title and the
   * time, and are told again so panels mark them; one still running (its
   * shell ended without the mark) ends `lost`. The oldest closed records go
   * first past maxClosed.
   */
  private keepClosed(followed: Followed): void {
    if (!this.records || this.maxClosed <= 0) return;
    const at = Date.now();
    // A restored session's records are what a file said: closed, they stay marked so.
    const closed = { title: followed.title.slice(0, MAX_CLOSED_TITLE_CHARS), at, ...(followed.restored ? { restored: true as const } : {}) };
    const kept = followed.commands.all.slice(-this.maxClosed).map(
      (record): CommandRecord => ({ ...record, ...(record.status === 'running' ? { status: 'lost' as const, endedAt: at } : {}), closed }),
    );
    this.closed.push(...kept);
    if (followed.owner !== null && kept.length > 0) this.closedOwners.set(kept[0]!.session, followed.owner);
    if (this.closed.length > this.maxClosed) {
      this.closed.splice(0, this.closed.length - this.maxClosed);
      const left = new Set(this.closed.map((record) => record.session));
      for (const session of this.closedOwners.keys()) if (!left.has(session)) this.closedOwners.delete(session);
    }
    this.closedChanges++;
    for (const record of kept) this.changed.fire(record);
  }

  private follow(info: SessionInfo): void {
    if (this.sessions.has(info.id)) return;
    const commands = new SessionCommands({
      session: info.id,
      agentName: info.source === 'agent' ? (info.ownerName ?? 'agent') : null,
      source: info.source,
      maxRecords: this.maxRecords,
      announcesKey: announcesShellKey(info.command, info.args),
    });
    const stop = this.records
      ? this.service.onSequences(info.id, {
          osc: (payload, start, end) => {
            if (!mayBeMark(payload)) return;
            // Called inside the service's output path: a fault here must not cost the chunk its other readers.
            try {
              const text = Buffer.from(payload.buffer, payload.byteOffset, payload.length).toString('utf8');
              const current = this.sessions.get(info.id);
              if (!current) return;
              this.publish(current, current.commands.osc(text, start, end, Date.now()));
              this.tellActivity(info.id, current);
            } catch (error) {
              reportError(error, `the timeline could not read a mark of session ${info.id}`);
            }
          },
        })
      : () => undefined;
    const restored = info.restored === true;
    const owner = info.source === 'agent' && !restored ? info.owner : null;
    const followed: Followed = { commands, times: new ChunkTimes(), stop, revision: 0, size: { cols: info.cols, rows: info.rows }, resizes: [], title: info.title, owner, restored };
    this.sessions.set(info.id, followed);
  }

  /** Keeps the session's title, and its size when it changed. */
  private updated(info: SessionInfo): void {
    const followed = this.sessions.get(info.id);
    if (!followed) return;
    followed.title = info.title;
    const last = followed.resizes.at(-1) ?? followed.size;
    if (last.cols === info.cols && last.rows === info.rows) return;
    followed.resizes.push({ cursor: this.service.scanPosition(info.id).end, time: Date.now(), cols: info.cols, rows: info.rows });
    if (followed.resizes.length > MAX_RESIZES) followed.resizes.shift();
    followed.revision++;
  }

  private tellActivity(session: SessionId, followed: Followed): void {
    const activity = followed.commands.activity;
    const told = followed.activity;
    if (activity === null || (told && told.state === activity.state && told.lastExitCode === activity.lastExitCode)) return;
    followed.activity = activity;
    this.shellChanged.fire({ session, activity });
  }

  private publish(followed: Followed, record: CommandRecord | null): void {
    if (!record) return;
    followed.revision++;
    this.changed.fire(record);
  }

  /** Drops records (and chunk times) whose output the session's log no longer has. */
  private trim(id: SessionId, followed: Followed): void {
    let start: number;
    try {
      start = this.service.read(id, { maxBytes: 1 }).cursor;
    } catch {
      return;
    }
    if (followed.commands.trim(start) > 0) followed.revision++;
    followed.times.trim(start);
  }
}
