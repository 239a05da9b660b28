/**
 * The session store (issue 24): keeps each session's last output and its
 * metadata in the state directory, so a host that is killed, crashes or is
 * upgraded leaves its sessions to the next one, which shows them `lost`.
 *
 * Nothing of it runs on the keystroke or output path: the service's events
 * only mark what changed, and a timer (every flushMs) reads what the logs
 * gained since and writes it, a bounded number of bytes per second across
 * all sessions (the longest waiting first), through asynchronous fs calls,
 * one at a time. A kill therefore loses what arrived since the last turn:
 * at most flushMs plus one write of output while the sessions together
 * print less than bytesPerSecond (README, "Lost sessions").
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { reportError, type CommandRecord, type ErrorReporter, type SessionInfo } from '@ptydeck/contract';
import type { PtyService } from '../pty/types.js';
import { assertPrivateDir } from '../common/private-paths.js';
import type { LostRecord, LostRecordSource } from '../pty/lost-record.js';
import { StoreFiles } from './store-files.js';
import { poolOps } from './file-ops.js';
import { openStoreDisk, type StoreDisk } from './store-disk.js';
import { closedCommandsPath, isStorableId } from './store-format.js';
import { loadClosedCommands, loadRecords } from './store-loader.js';
import { SessionWriter, type OnDisk, type TimelineSource } from './session-writer.js';

const MiB = 1024 * 1024;
/** Sessions written at once: libuv's thread pool has four threads by default. */
const WRITE_LANES = 4;
/** Records a start brings back at most: as many exited sessions as the PTY service keeps (service-config.ts). */
const MAX_RESTORED = 256;

export interface SessionStoreOptions {
  /** `<stateDir>/sessions`: created 0700; refused when other users could write it. */
  dir: string;
  /** Output kept per session: its last bytes. Default 1 MiB. */
  sessionBytes?: number;
  /** Output kept across sessions; past it the oldest ended sessions' output goes first. Default 64 MiB. */
  totalBytes?: number;
  /** Time between writes: what a kill may lose. Default 1000 ms. */
  flushMs?: number;
  /** Bytes written per second at most, across sessions (a turn may overrun by one session's write). Default 8 MiB. */
  bytesPerSecond?: number;
  /** Called with a failed write or an unreadable record; default: the contract's reportError (stderr). */
  onError?: ErrorReporter;
  /** False: the files are written through libuv's thread pool, not the store's disk thread (store-disk.ts); for comparison. Default true. */
  diskThread?: boolean;
}

export interface SessionStoreExtras {
  /** The agent tool's read cursor for a session (null when no agent reads it): kept so the agent carries on after a restart. */
  agentCursorOf(id: string): number | null;
  /** The session's command timeline: a revision that moves when it changes, and what to write for output from `from` on. */
  timeline?: TimelineSource;
}

export interface SessionStore extends LostRecordSource {
  /**
   * The closed sessions' command records an earlier host kept, checked against the contract's schema
   * (the file is untrusted), or undefined when there are none or the file is refused (set aside, logged).
   */
  loadClosedCommands(): Promise<CommandRecord[] | undefined>;
  /** Starts keeping what `service`'s sessions do (those it has now, and every later one); returns the disposer. */
  record(service: PtyService, extras?: SessionStoreExtras): () => void;
  /**
   * Resolves once everything the sessions printed so far is on disk, whatever the budget: for a
   * graceful stop, before record()'s disposer (which lets go of the sessions it was keeping).
   */
  flush(): Promise<void>;
  /** Stops recording; writes already under way finish. */
  dispose(): void;
}

/** Where a host with this state directory keeps its sessions. */
export function sessionStoreDir(stateDir: string): string {
  return join(stateDir, 'sessions');
}

/** Whether sessions are kept across a host's death: on, unless PTYDECK_PERSIST is 0, false, off or no. */
export function sessionStoreSetting(env: Record<string, string | undefined> = process.env): boolean {
  const value = env.PTYDECK_PERSIST?.trim().toLowerCase();
  return !(value === '0' || value === 'false' || value === 'off' || value === 'no');
}

export function openSessionStore(options: SessionStoreOptions): SessionStore {
  return new DiskSessionStore(options);
}

class DiskSessionStore implements SessionStore {
  private readonly dir: string;
  private readonly sessionBytes: number;
  private readonly totalBytes: number;
  private readonly flushMs: number;
  private readonly bytesPerTurn: number;
  private readonly report: ErrorReporter;
  /** Where the file operations run: the disk thread, made at the first write. */
  private readonly files: StoreFiles;
  private readonly disk: StoreDisk | undefined;
  private readonly writers = new Map<string, SessionWriter>();
  /** What load() found on disk, until a writer adopts it. */
  private onDisk = new Map<string, OnDisk>();
  /** Sessions restored from load()'s records: the total cap never trims their files for this host's (enforceTotal). */
  private readonly restored = new Set<string>();
  /** Every disk operation runs in this chain, one after another: a removal never races a write of the same files. */
  private queue: Promise<void> = Promise.resolve();
  private turnQueued = false;
  private turns = 0;
  private stopRecording: (() => void) | undefined;
  /**
   * One read buffer per lane (a cap long), lent to each write: held only while
   * the sessions print more than a turn's budget, the flood that would otherwise
   * allocate a new cap per session per turn; a turn within its budget lets them go.
   */
  private scratch: Uint8Array[] = [];
  private extras: SessionStoreExtras | undefined;
  /** The timeline's closed-records revision last written. */
  private closedWritten = -1;

  constructor(options: SessionStoreOptions) {
    this.dir = options.dir;
    this.sessionBytes = options.sessionBytes ?? 1 * MiB;
    this.totalBytes = options.totalBytes ?? 64 * MiB;
    this.flushMs = options.flushMs ?? 1000;
    this.bytesPerTurn = ((options.bytesPerSecond ?? 8 * MiB) * this.flushMs) / 1000;
    this.report = options.onError ?? reportError;
    this.disk = options.diskThread === false ? undefined : openStoreDisk();
    this.files = new StoreFiles(this.disk ?? poolOps);
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    assertPrivateDir(this.dir, process.getuid?.(), {
      what: 'session store',
      risk: 'anyone could plant sessions that ptydeck shows as yours, or remove what your sessions printed',
    });
  }

  async load(): Promise<LostRecord[]> {
    const { records, onDisk } = await loadRecords(this.dir, { sessionBytes: this.sessionBytes, totalBytes: this.totalBytes, maxRecords: MAX_RESTORED }, this.report);
    this.onDisk = onDisk;
    for (const record of records) this.restored.add(record.info.id);
    return records;
  }

  loadClosedCommands(): Promise<CommandRecord[] | undefined> {
    return loadClosedCommands(this.dir, this.report);
  }

  forget(id: string): void {
    this.drop(id);
  }

  record(service: PtyService, extras?: SessionStoreExtras): () => void {
    if (this.stopRecording) throw new Error('the session store is recording a service already');
    for (const info of service.list()) this.add(service, info);
    const offs = [
      service.on('pty.created', (event) => this.add(service, event.info)),
      service.on('pty.updated', (event) => this.writers.get(event.info.id)?.update(event.info)),
      service.on('pty.exited', (event) => this.writers.get(event.id)?.update(event.info)),
      service.on('pty.removed', (event) => this.drop(event.id)),
    ];
    const timer = setInterval(() => this.tick(), this.flushMs);
    // The host's server keeps it alive; a store alone must not.
    timer.unref();
    const stop = () => {
      if (this.stopRecording !== stop) return;
      this.stopRecording = undefined;
      clearInterval(timer);
      for (const off of offs) off();
      this.writers.clear();
      this.extras = undefined;
    };
    this.extras = extras;
    this.stopRecording = stop;
    return stop;
  }

  flush(): Promise<void> {
    return this.enqueue(() => this.turn(Number.POSITIVE_INFINITY, true));
  }

  dispose(): void {
    this.stopRecording?.();
    // Writes already under way finish first; the thread ends with the last of them.
    void this.queue.then(() => this.disk?.close());
  }

  private add(service: PtyService, info: SessionInfo): void {
    if (this.writers.has(info.id)) return;
    if (!isStorableId(info.id)) {
      this.report(new Error(`session id ${JSON.stringify(info.id)} cannot name a file`), 'the session store does not keep this session');
      return;
    }
    this.writers.set(info.id, new SessionWriter(this.dir, service, info, this.sessionBytes, this.files, this.onDisk.get(info.id)));
    this.onDisk.delete(info.id);
  }

  private drop(id: string): void {
    this.writers.delete(id);
    this.onDisk.delete(id);
    this.restored.delete(id);
    if (!isStorableId(id)) return;
    void this.enqueue(() => this.files.removeSessionFiles(this.dir, id));
  }

  private tick(): void {
    // A turn that takes longer than the interval is not piled on: one waits behind it at most.
    if (this.turnQueued) return;
    this.turnQueued = true;
    void this.enqueue(() => {
      this.turnQueued = false;
      return this.turn(this.bytesPerTurn, false);
    });
  }

  /**
   * Writes the sessions with something new, ended ones first, then the longest waiting, until `budget` bytes are spent.
   * `all` (a flush): the chunk times a timed turn leaves for later too (SessionWriter.timelineDirty).
   */
  private async turn(budget: number, all: boolean): Promise<void> {
    for (const writer of this.writers.values()) {
      writer.noteAgentCursor(this.extras?.agentCursorOf(writer.id) ?? null);
      if (this.extras?.timeline) writer.noteTimeline(this.extras.timeline);
    }
    const due = [...this.writers.values()].filter((writer) => writer.pending(all));
    due.sort((a, b) => Number(b.urgent) - Number(a.urgent) || a.servedAt - b.servedAt);
    let spent = 0;
    let next = 0;
    let lanes = 0;
    // Each fs call waits for a thread of libuv's pool: one session after another, a hundred sessions'
    // turn took seconds on a busy machine, with the pool mostly idle.
    const lane = async () => {
      const scratch = this.lend(lanes++);
      while (next < due.length && spent < budget) {
        const writer = due[next++]!;
        // Removed while an earlier one was written: its files are about to go.
        if (this.writers.get(writer.id) !== writer) continue;
        writer.servedAt = ++this.turns;
        spent += await this.guarded(writer, () => writer.write(scratch, all));
      }
    };
    await Promise.all(Array.from({ length: WRITE_LANES }, lane));
    await this.enforceTotal();
    await this.writeClosed();
    if (spent < budget) this.scratch = [];
  }

  /** The closed sessions' command records, one file, written whole when they changed (a few hundred bytes a record). */
  private async writeClosed(): Promise<void> {
    const timeline = this.extras?.timeline;
    if (!timeline) return;
    const revision = timeline.closedRevision();
    if (revision === this.closedWritten) return;
    try {
      await this.files.replace(closedCommandsPath(this.dir), JSON.stringify(timeline.persistedClosed()));
      this.closedWritten = revision;
    } catch (error) {
      this.report(error, "the session store could not write the closed sessions' command records");
    }
  }

  /** Lane `lane`'s read buffer, made at its first use; the lane's writes run one after another, so they share it. */
  private lend(lane: number): () => Uint8Array {
    return () => (this.scratch[lane] ??= new Uint8Array(this.sessionBytes));
  }

  /**
   * Past totalBytes, output goes: the oldest ended sessions' first (whole),
   * then running sessions' above the per-session cap (their files grow to
   * twice it between compactions), then the running sessions holding the
   * most. Metadata stays, so every session still comes back. Only what this
   * host wrote counts and is trimmed: a restored record's file is as an earlier
   * host (or anything else) left it, and trimming it in favour of records
   * nothing can tell apart from it could empty the developer's for a planted
   * one's (load() bounds what restored files hold instead).
   */
  private async enforceTotal(): Promise<void> {
    const writers = [...this.writers.values()].filter((writer) => !this.restored.has(writer.id));
    let excess = writers.reduce((sum, writer) => sum + writer.bytes, 0) - this.totalBytes;
    if (excess <= 0) return;
    const ended = writers.filter((writer) => writer.ended).sort((a, b) => a.endedAt - b.endedAt);
    const running = writers.filter((writer) => !writer.ended).sort((a, b) => b.bytes - a.bytes);
    const steps = [
      ...ended.map((writer) => ({ writer, floor: 0 })),
      ...running.map((writer) => ({ writer, floor: this.sessionBytes })),
      ...running.map((writer) => ({ writer, floor: 0 })),
    ];
    for (const { writer, floor } of steps) {
      if (excess <= 0) return;
      if (this.writers.get(writer.id) !== writer) continue;
      const before = writer.bytes;
      await this.guarded(writer, async () => {
        await writer.shrinkTo(Math.max(floor, before - excess));
        return writer.write(this.lend(0));
      });
      excess -= before - writer.bytes;
    }
  }

  private async guarded(writer: SessionWriter, write: () => Promise<number>): Promise<number> {
    try {
      return await write();
    } catch (error) {
      this.report(error, `the session store could not write session ${writer.id}`);
      return 0;
    }
  }

  private enqueue(task: () => Promise<void>): Promise<void> {
    const run = this.queue.then(task).catch((error: unknown) => this.report(error, 'the session store failed'));
    this.queue = run;
    return run;
  }
}
