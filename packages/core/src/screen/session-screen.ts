// One session's headless screen, brought up to date from its log only when someone reads it.
import type { ErrorReporter, SessionId } from '@ptydeck/contract';
import type { PtyService } from '../pty/types.js';
import { incompleteTail } from '../vt/index.js';
import type { BackgroundParse, BackgroundScheduler } from './background-scheduler.js';
import { BackgroundPacing, MIRROR_CHUNK } from './background-pacing.js';
import { KeptRead } from './kept-read.js';
import { MIRROR_SCROLLBACK, type MirrorScreen, type ScreenReader, type WriteMarks } from './mirror-screen.js';
import type { ScreenMirrorOptions } from './screen-mirror.js';
import { ScreenLostError } from './screen-lost-error.js';
import { skimTarget } from './skim-target.js';

/**
 * Largest slice fed while a read waits: everything it parses (at most 512 KiB, see skimTarget) in one,
 * because each slice is a round trip to the worker through the main loop,
 * which a flood keeps busy: in slices of MIRROR_CHUNK a read would wait for
 * the loop once per slice.
 */
const READ_CHUNK = 1024 * 1024;
/** Slices from this size are read into a buffer the worker gives back (SessionScreenDeps.sliceBuffer). */
const POOLED_SLICE_FROM = 4096;

export interface SessionScreenDeps {
  service: PtyService;
  scheduler: BackgroundScheduler;
  createScreen: (options: ScreenMirrorOptions) => MirrorScreen;
  reportError: ErrorReporter;
  /**
   * Parse output as it arrives (in the background, one slice at a time for
   * all sessions), not only once a backlog builds up or the session goes
   * quiet: for screens in the worker, whose thread is otherwise idle. Asked
   * as output arrives: a worker that gave up leaves its screens to this thread.
   */
  eager: () => boolean;
  /**
   * The screens in a run of bulk output (more than a slice behind), shared
   * by all of a service's screens, each by its BackgroundPacing: when more
   * than EAGER_FLOODS of them flood at once, none of their floods is parsed
   * eagerly.
   */
  bulk: Set<BackgroundPacing>;
  /**
   * The log cursors in [from, to] where a command's output starts or ends,
   * ascending: the screen notes where it stands at each as it parses, for a
   * resync's gutter marks.
   */
  commandCursors: (id: SessionId, from: number, to: number) => readonly number[];
  /**
   * A buffer to read a slice of up to `maxBytes` into, which a write hands on
   * whole (ScreenWorker.sliceBuffer), or undefined: the read allocates a copy.
   */
  sliceBuffer?: (maxBytes: number) => Uint8Array | undefined;
}

/**
 * A headless terminal per session that renders its output on demand, so a
 * viewer that reloads or falls behind can be handed the screen instead of
 * megabytes of history, and a model can read what a person would see.
 * Sizes are applied at the log position where the session was resized.
 *
 * Where the terminal parses decides when. In the screen worker (the
 * default) a slice costs the main thread one log copy, handed over, so
 * output is parsed as it arrives: the worker's thread is otherwise idle and a
 * screen that is ready when a viewer or a model asks answers at once. Past
 * EAGER_BULK of output without a pause (a flood), or when more than
 * EAGER_FLOODS sessions flood at once, it stops until the session is quiet:
 * the CPU is then the flood's, and a read parses what it needs, skimming
 * the rest. On the main thread (a ScreenService given createScreen, or one
 * whose worker gave up after dying too often) parsing is lazy because it is costly: mirroring every byte as it arrived cut a
 * `yes` flood's throughput sixfold. The mirror then pulls from the session log: at full
 * speed when its screen is read; otherwise in slices under a budget shared by
 * all mirrors, once over a megabyte is waiting or once the session has been
 * quiet for QUIET_MS. Either way, if the log trims past it during a flood it
 * continues from the oldest retained byte, which for a flood is the screen
 * anyway.
 */
export class SessionScreen implements BackgroundParse {
  /** Made on the first parse or read: a session nobody looks at never costs a terminal. */
  private mirror: MirrorScreen | undefined;
  /** The mirror's size as of `parsed` (what it is made with, or resized to). */
  private mirrorSize: { cols: number; rows: number };
  /**
   * Cursor one past the last byte parsed: by a terminal in this thread, or
   * handed to one in the worker, which parses a screen's slices in order
   * before it answers any read asked for after them (see sendSlice).
   */
  private parsed = 0;
  /**
   * The last bytes parsed when they begin a character still incomplete (a PTY
   * read ended inside it): the terminal holds them, its screen shows nothing
   * of them yet, so a screen read reflects the log only up to their start.
   */
  private unfinished: Uint8Array = new Uint8Array(0);
  /** One past the newest byte known to be in the log. */
  private end = 0;
  /**
   * A slice is being parsed by a terminal in this thread: only one at a
   * time may write to it. (One in the worker takes slices one after another
   * by itself, see sendSlice.)
   */
  private busy = false;
  /** A write already failed and was reported: later failures of this mirror are not reported again. */
  private failed = false;
  /** When this screen parses in the background (see BackgroundPacing). */
  private readonly pacing: BackgroundPacing;
  private disposed = false;
  /** The session exited: its log is final, and a screen that parsed all of it is frozen (see freezeIfDone). */
  private ended = false;
  /** Size changes, applied when parsing reaches the log position where they happened. */
  private resizes: Array<{ at: number; cols: number; rows: number }> = [];
  private waiters: Array<{ target: number; history: boolean; settle: (through: number) => void }> = [];
  /** The size most recently asked for (pty.updated also reports title changes). */
  private size: { cols: number; rows: number };
  private readonly kept = new KeptRead(); // the last snapshot-like read, answered again while nothing changed

  constructor(
    private readonly deps: SessionScreenDeps,
    readonly id: SessionId,
    cols: number,
    rows: number,
  ) {
    this.mirrorSize = { cols, rows };
    this.size = { cols, rows };
    this.pacing = new BackgroundPacing({
      eager: deps.eager,
      bulk: deps.bulk,
      parsed: () => this.parsed,
      end: () => this.end,
      request: () => deps.scheduler.request(this),
    });
  }

  /** Output entered the log up to `end`. */
  grew(end: number): void {
    this.end = Math.max(this.end, end);
    this.kept.grew(end);
    this.pacing.grew();
  }

  /**
   * The session exited: nothing more enters its log. Once the screen has
   * parsed all of it (the quiet catch-up sees to that), it keeps only what
   * reads return, not its terminal: an exited session's screen never changes
   * again, and a terminal with its scrollback is ten times the size of its
   * snapshot (the bench README's "Memory").
   */
  exited(): void {
    this.ended = true;
    this.freezeIfDone();
  }

  /** Cursor one past the last byte parsed (for the worker's screens, handed to it to parse in order). */
  get parsedThrough(): number {
    return this.parsed;
  }

  /** The session was resized after everything currently in its log. */
  resized(cols: number, rows: number): void {
    if (cols === this.size.cols && rows === this.size.rows) return;
    this.size = { cols, rows };
    this.kept.changed();
    this.resizes.push({ at: this.logEnd(), cols, rows });
    if (!this.busy) this.applyDueResizes();
  }

  /**
   * What `reader` reads off the screen once it reflects everything in the log
   * now. Rejects when the read throws (a caller such as a viewer's resync then
   * falls back to the log).
   */
  read<T>(reader: ScreenReader<T>): Promise<T> {
    if (this.disposed) return Promise.resolve(reader.gone(this.parsed));
    const target = this.logEnd();
    return this.kept.take(reader, target) ?? new Promise((resolve, reject) => {
      const waiter = {
        target,
        history: reader.history,
        /** `through`: the log position the screen reflects when the read reaches it. */
        settle: (through: number) => {
          if (this.disposed) return resolve(reader.gone(this.parsed));
          if (this.mirror?.lost) return retry();
          let screen: MirrorScreen;
          try {
            screen = this.screen();
          } catch (error) {
            return reject(error);
          }
          // Asked for now, synchronously: the screen answers as of what was written to it so far
          // (`through`: `unfinished` describes the end of the same write), and a viewer that
          // continues from there starts with the whole of a character cut short.
          const stamp = this.kept.stamp;
          reader.read(screen, through - this.unfinished.length).then(
            (value) => {
              // Kept only if nothing but this read happened to the screen meanwhile, and the log ends where it did.
              if (through === this.logEnd()) this.kept.keep(reader, through, stamp, value);
              resolve(value);
            },
            (error: unknown) => (screen.lost && !this.disposed ? retry() : reject(error)),
          );
        },
      };
      // The screen went with its worker before it answered: wait again, for a new screen fed from the log.
      const retry = (): void => {
        if (this.mirror?.lost) this.restart();
        this.waiters.push(waiter);
        queueMicrotask(() => this.catchUp());
      };
      this.waiters.push(waiter);
      this.catchUp();
    });
  }

  /**
   * One background slice for the scheduler: resolves with the milliseconds
   * spent, or null once the backlog is small again (or the mirror is gone).
   */
  async backgroundSlice(): Promise<number | null> {
    if (this.disposed || this.pacing.caughtUp()) {
      this.pacing.stopped();
      return null;
    }
    if (this.busy) return 0; // a read is catching up; it gets there first
    if (this.pacing.holdsForFlood()) return null;
    const started = performance.now();
    const end = this.end;
    this.pacing.slicing();
    if (await this.parseSlice(MIRROR_CHUNK, true)) this.pacing.outran(end);
    // A read asked for while this slice was parsing in this thread found the
    // mirror busy and left the catching up to whoever held it: that is us.
    this.catchUp();
    return performance.now() - started;
  }

  dispose(): void {
    this.disposed = true;
    this.kept.changed();
    this.pacing.dispose();
    this.settleWaiters(true);
    this.mirror?.dispose();
  }

  private screen(): MirrorScreen {
    this.mirror ??= this.deps.createScreen({ ...this.mirrorSize, scrollback: MIRROR_SCROLLBACK });
    return this.mirror;
  }

  /**
   * The terminal went with its worker: the next one parses again from the
   * oldest byte the log keeps, at the size the lost one had (the sizes before
   * that point are not kept, as when the log trims past a mirror).
   */
  private restart(): void {
    this.kept.changed();
    this.mirror?.dispose();
    this.mirror = undefined;
    this.unfinished = new Uint8Array(0);
    try {
      this.parsed = this.deps.service.read(this.id, { maxBytes: 1 }).cursor;
    } catch {
      // removed meanwhile; pty.removed disposes us
    }
  }

  /** Parses at full speed until every waiting read's target is reached. */
  private catchUp(): void {
    if (this.busy || this.disposed) return;
    this.settleWaiters(false);
    while (this.waiters.length > 0) {
      const from = this.parsed;
      const parsing = this.parseSlice(READ_CHUNK).catch((error: unknown) => {
        // parseSlice handles a failed write itself; this is anything else. The waiting reads get what there is.
        this.deps.reportError(error, `the screen mirror of session ${this.id} failed`);
        this.settleWaiters(true);
      });
      // A screen that takes slices in order has this one already (sendSlice): the next one, a skim's
      // rest say, goes out now rather than a round trip later. One in this thread is parsing it.
      if (this.mirror?.readsFollowWrites && !this.mirror.lost && this.parsed > from) continue;
      void parsing.then(() => this.catchUp());
      return;
    }
  }

  /**
   * Reads one slice from the log (never past a pending resize) and parses it,
   * or skims it (see skimTarget): resolves with whether it skimmed.
   */
  private async parseSlice(chunk: number, background = false): Promise<boolean> {
    if (this.mirror?.lost) this.restart();
    // Where the slice begins: the log may have trimmed past the mirror during a flood. Counted from
    // there, a limit meant to end at a skim's target ends there: counted from `parsed`, a read that
    // starts at the oldest byte kept ran past the target by all that was trimmed, and skimmed the
    // very end (a prompt after Ctrl-C) instead of drawing it.
    const from = this.readFrom();
    const nextResize = this.resizes[0]?.at;
    const skimTo = this.skimTarget(from, nextResize);
    const limit = skimTo !== undefined ? skimTo - from : nextResize === undefined ? chunk : Math.max(1, Math.min(chunk, nextResize - from));
    let slice;
    try {
      // Worth a pooled buffer only for a slice larger than a PTY read: a small copy costs less to allocate.
      const expected = Math.min(limit, this.end - from);
      const into = expected >= POOLED_SLICE_FROM ? this.deps.sliceBuffer?.(expected) : undefined;
      slice = this.deps.service.read(this.id, { cursor: from, maxBytes: limit, ...(into ? { into } : {}) });
    } catch {
      this.settleWaiters(true); // removed meanwhile; pty.removed disposes us
      return false;
    }
    this.end = Math.max(this.end, slice.end);
    // Before the write: a screen in the worker takes the bytes (the buffer is transferred, leaving slice.data empty).
    const empty = slice.data.length === 0;
    const skimmed = !empty && skimTo !== undefined;
    // A skim draws nothing, so it leaves no character begun.
    if (!empty) this.unfinished = skimTo !== undefined ? new Uint8Array(0) : unfinishedAfter(this.unfinished, slice.data);
    if (!empty) {
      const screen = this.screen();
      // A skim draws nothing: no place to note.
      const marks = skimTo === undefined ? this.marksIn(slice.next - slice.data.length, slice.next) : undefined;
      if (screen.readsFollowWrites) {
        await this.sendSlice(screen, slice.data, slice.next, skimTo !== undefined, marks, background);
        return skimmed;
      }
      this.busy = true;
      try {
        await (skimTo !== undefined ? screen.skim(slice.data) : screen.write(slice.data, marks));
      } catch (error) {
        if (this.writeFailed(screen, error)) return false;
      } finally {
        this.busy = false;
      }
    }
    // Only this mirror writes, one slice at a time: the screen now reflects exactly [.., next).
    this.parsed = slice.next;
    this.applyDueResizes();
    this.settleWaiters(empty);
    this.freezeIfDone();
    return skimmed;
  }

  /**
   * A slice for a screen that serves its requests in order (the worker's):
   * it counts as parsed once sent, so the reads it completes go out right
   * behind it (one round trip to the worker, not a write's and then a
   * read's), after a resize made where it ends, and a read asked for while
   * it is parsing goes out at once instead of waiting for its answer, a trip
   * through a main loop that a flood keeps busy.
   */
  private async sendSlice(screen: MirrorScreen, data: Uint8Array, next: number, skim: boolean, marks: WriteMarks | undefined, background: boolean): Promise<void> {
    const written = skim ? screen.skim(data) : screen.write(data, marks, background);
    this.parsed = next;
    this.applyDueResizes();
    this.settleWaiters(false);
    // Asked after the write and the reads it completed: the worker applies it after them.
    this.freezeIfDone();
    try {
      await written;
    } catch (error) {
      this.writeFailed(screen, error);
    }
  }

  /**
   * A slice the screen did not take. True when the screen is gone (its
   * worker died, or the service is being disposed): nothing of the slice is
   * anywhere and the next parse starts over on a new screen (see restart()).
   * Otherwise the mirror moves past it, since it cannot be fed again without
   * doubling whatever part was parsed: its screen may be off until later
   * output repaints it, which beats a mirror that never parses again and
   * reads that never resolve.
   */
  private writeFailed(screen: MirrorScreen, error: unknown): boolean {
    if (screen.lost || this.disposed || error instanceof ScreenLostError) return true;
    if (!this.failed) this.deps.reportError(error, `the screen mirror of session ${this.id} failed to parse output; later failures of this mirror are not reported`);
    this.failed = true;
    return false;
  }

  /** The commands' cursors in the slice [from, to], or undefined when there are none (or asking failed: marks are a nicety). */
  private marksIn(from: number, to: number): WriteMarks | undefined {
    let cursors: readonly number[];
    try {
      cursors = this.deps.commandCursors(this.id, from, to);
    } catch (error) {
      this.deps.reportError(error, `reading the command marks of session ${this.id} failed`);
      return undefined;
    }
    return cursors.length > 0 ? { from, cursors } : undefined;
  }

  /** Freezes the screen of an exited session once it reflects the whole log, with no read or parse in between. */
  private freezeIfDone(): void {
    const screen = this.mirror;
    if (!this.ended || this.disposed || this.busy || this.waiters.length > 0 || !screen || screen.lost) return;
    if (this.parsed < this.logEnd() || this.resizes.length > 0) return;
    screen.freeze();
  }

  /** Where a slice from `from` skims to (see skimTarget), or undefined to parse. */
  private skimTarget(from: number, nextResize: number | undefined): number | undefined {
    const end = this.logEnd();
    // Background parsing keeps history for a resync to come; so does a read when any waiting read wants it.
    const screenOnly = this.waiters.length > 0 && !this.waiters.some((waiter) => waiter.history);
    return skimTarget({ parsed: from, end, nextResize, screenOnly, ...this.size }, (cursor, maxBytes) =>
      this.deps.service.read(this.id, { cursor, maxBytes }),
    );
  }

  /** Applies the resizes made up to `through`, a position the screen has been given everything before. */
  private applyDueResizes(through = this.parsed): void {
    while (this.resizes.length > 0 && this.resizes[0]!.at <= through) {
      const { cols, rows } = this.resizes.shift()!;
      this.mirrorSize = { cols, rows };
      if (this.mirror && !this.disposed && (cols !== this.mirror.cols || rows !== this.mirror.rows)) this.mirror.resize(cols, rows);
    }
  }

  /** The first byte the next slice can read: `parsed`, or the oldest byte the log keeps once it trimmed past it. */
  private readFrom(): number {
    return Math.max(this.parsed, this.logBounds()?.cursor ?? this.parsed);
  }

  private logEnd(): number {
    return this.logBounds()?.end ?? this.parsed;
  }

  /** The oldest byte the log keeps and one past its newest; undefined once the session is gone. */
  private logBounds(): { cursor: number; end: number } | undefined {
    try {
      return this.deps.service.read(this.id, { maxBytes: 1 });
    } catch {
      return undefined;
    }
  }

  /**
   * Settles the reads whose target is reached once the screen reflects the
   * log up to `through` (all of them when `all`).
   */
  private settleWaiters(all: boolean, through = this.parsed): void {
    const due = this.waiters.filter((w) => all || w.target <= through);
    if (due.length === 0) return;
    this.waiters = this.waiters.filter((w) => !due.includes(w));
    for (const waiter of due) waiter.settle(through);
  }
}

/** The bytes that begin a character still incomplete once `data` follows `before` (the same, from the last write). */
function unfinishedAfter(before: Uint8Array, data: Uint8Array): Uint8Array {
  // A character is at most four bytes: only the last four can hold an unfinished one.
  const recent = data.length >= 4 ? data.subarray(data.length - 4) : Uint8Array.from([...before, ...data]);
  return recent.slice(recent.length - incompleteTail(recent));
}
