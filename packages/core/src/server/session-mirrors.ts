import { DisposableStore, reportError, type ErrorReporter, type SessionId, type SessionInfo } from '@ptydeck/contract';
import { ScreenMirror, type ScreenMirrorOptions } from '../agent/screen-mirror.js';
import type { PtyService } from '../pty/types.js';

/**
 * Scrollback kept in each mirror; a resync restores this much history. Not
 * 10 000: serializing 10 000 lines took 215 to 300 ms of CPU and 934 KiB of
 * resync message (as much as replaying the log), against 20 to 110 ms and
 * 96 KiB for 1000 lines, and the lines cost about 1 KiB each per session.
 */
const MIRROR_SCROLLBACK = 1000;
/** Largest slice fed to a mirror at once. */
const MIRROR_CHUNK = 64 * 1024;
/** Unparsed output a mirror tolerates before it starts catching up in the background. */
const LAZY_BACKLOG = 1024 * 1024;
/** Background catch-up stops once the backlog is this small again. */
const LAZY_RESUME = 256 * 1024;
/** Share of wall time background catch-up may parse: the rest belongs to the PTYs and the sockets. */
const BACKGROUND_DUTY = 0.2;
/** Floor on the pause between background slices. */
const MIN_PAUSE_MS = 5;
/** A session this long without output counts as quiet: its mirror then catches up in the background. */
const QUIET_MS = 100;

export interface ScreenSnapshot {
  /** Serialized screen and scrollback, to be written into a reset terminal. */
  screen: string;
  /** Absolute cursor one past the last byte the screen reflects. */
  cursor: number;
}

/** The part of a ScreenMirror a session's mirror uses. */
export type MirrorScreen = Pick<ScreenMirror, 'write' | 'resize' | 'serialize' | 'dispose' | 'cols' | 'rows'>;

export interface SessionMirrorsOptions {
  /** Makes a session's headless terminal. Default: a ScreenMirror. */
  createScreen?: (options: ScreenMirrorOptions) => MirrorScreen;
  /** Where a failed parse or snapshot is reported. Default: the contract's reportError (stderr). */
  reportError?: ErrorReporter;
}

interface MirrorDeps {
  service: PtyService;
  scheduler: BackgroundScheduler;
  createScreen: (options: ScreenMirrorOptions) => MirrorScreen;
  reportError: ErrorReporter;
}

/**
 * A headless terminal per session that renders its output on demand, so a
 * viewer that reloads or falls behind can be handed the screen instead of
 * megabytes of history.
 *
 * Parsing is lazy because it is costly: mirroring every byte as it arrived
 * cut a `yes` flood's throughput sixfold (the parser shares the event loop
 * with the PTY reads). The mirror pulls from the session log instead: it
 * parses at full speed when a snapshot is asked for; otherwise in slices
 * under a budget shared by all mirrors, once over a megabyte is waiting or
 * once the session has been quiet for QUIET_MS (so that the first viewer
 * does not wait for a parse of everything: 0.2 to 0.76 s for 10 000 colored
 * lines). If the log trims past it during a flood it continues from the
 * oldest retained byte, which for a flood is the screen anyway.
 */
class SessionMirror {
  /** Made on the first parse or snapshot: a session nobody looks at never costs a terminal. */
  private mirror: MirrorScreen | undefined;
  /** The mirror's size as of `parsed` (what it is made with, or resized to). */
  private mirrorSize: { cols: number; rows: number };
  /** Cursor one past the last byte parsed. */
  private parsed = 0;
  /** One past the newest byte known to be in the log. */
  private end = 0;
  /** A slice is being parsed: only one at a time may write to the terminal. */
  private busy = false;
  /** A write already failed and was reported: later failures of this mirror are not reported again. */
  private failed = false;
  /** Queued with the background scheduler. */
  private background = false;
  /** The background catch-up goes all the way to the end (the session is quiet), not just under LAZY_RESUME. */
  private toEnd = false;
  /** When output last arrived, and the timer that checks for quiet (one at a time, re-armed lazily). */
  private lastOutputAt = 0;
  private quietTimer: NodeJS.Timeout | undefined;
  private disposed = false;
  /** Size changes, applied when parsing reaches the log position where they happened. */
  private resizes: Array<{ at: number; cols: number; rows: number }> = [];
  private waiters: Array<{ target: number; resolve: () => void }> = [];
  /** The size most recently asked for (pty.updated also reports title changes). */
  private size: { cols: number; rows: number };

  constructor(
    private readonly deps: MirrorDeps,
    readonly id: SessionId,
    cols: number,
    rows: number,
  ) {
    this.mirrorSize = { cols, rows };
    this.size = { cols, rows };
  }

  /** Output entered the log up to `end`. */
  grew(end: number): void {
    this.end = Math.max(this.end, end);
    this.toEnd = false; // not quiet any more
    this.lastOutputAt = performance.now();
    // Per chunk only a timestamp: the timer is armed once and re-armed when it fires early.
    this.quietTimer ??= this.armQuietTimer(QUIET_MS);
    if (this.end - this.parsed > LAZY_BACKLOG) this.queueBackground();
  }

  /** Cursor one past the last byte parsed. */
  get parsedThrough(): number {
    return this.parsed;
  }

  /** The session was resized after everything currently in its log. */
  resized(cols: number, rows: number): void {
    if (cols === this.size.cols && rows === this.size.rows) return;
    this.size = { cols, rows };
    this.resizes.push({ at: this.logEnd(), cols, rows });
    if (!this.busy) this.applyDueResizes();
  }

  /** The screen as of everything in the log now. */
  snapshot(): Promise<ScreenSnapshot> {
    if (this.disposed) return Promise.resolve({ screen: '', cursor: this.parsed });
    const target = this.logEnd();
    return new Promise((resolve, reject) => {
      this.waiters.push({
        target,
        resolve: () => {
          try {
            resolve(this.take());
          } catch (error) {
            reject(error); // the caller falls back to the log
          }
        },
      });
      this.catchUp();
    });
  }

  /**
   * One background slice for the scheduler: resolves with the milliseconds
   * spent, or null once the backlog is small again (or the mirror is gone).
   */
  async backgroundSlice(): Promise<number | null> {
    if (this.disposed || this.end - this.parsed <= (this.toEnd ? 0 : LAZY_RESUME)) {
      this.background = false;
      return null;
    }
    if (this.busy) return 0; // a snapshot is catching up; it gets there first
    const started = performance.now();
    await this.parseSlice();
    // A snapshot asked for while this slice was parsing found the mirror busy
    // and left the catching up to whoever held it: that is us.
    this.catchUp();
    return performance.now() - started;
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.quietTimer);
    this.quietTimer = undefined;
    this.settleWaiters(true);
    this.mirror?.dispose();
  }

  private queueBackground(): void {
    if (this.background || this.disposed) return;
    this.background = true;
    this.deps.scheduler.request(this);
  }

  private armQuietTimer(ms: number): NodeJS.Timeout {
    const timer = setTimeout(() => {
      this.quietTimer = undefined;
      if (this.disposed) return;
      const quietFor = performance.now() - this.lastOutputAt;
      if (quietFor < QUIET_MS) {
        this.quietTimer = this.armQuietTimer(QUIET_MS - quietFor);
        return;
      }
      if (this.end <= this.parsed) return;
      this.toEnd = true;
      this.queueBackground();
    }, ms);
    timer.unref();
    return timer;
  }

  private screen(): MirrorScreen {
    this.mirror ??= this.deps.createScreen({ ...this.mirrorSize, scrollback: MIRROR_SCROLLBACK });
    return this.mirror;
  }

  /** Parses at full speed until every waiting snapshot's target is reached. */
  private catchUp(): void {
    if (this.busy || this.disposed) return;
    this.settleWaiters(false);
    if (this.waiters.length === 0) return;
    this.parseSlice().then(
      () => this.catchUp(),
      (error: unknown) => {
        // parseSlice handles a failed write itself; this is anything else. The waiting snapshots get what there is.
        this.deps.reportError(error, `the screen mirror of session ${this.id} failed`);
        this.settleWaiters(true);
      },
    );
  }

  /** Reads one slice from the log (never past a pending resize) and parses it. */
  private async parseSlice(): Promise<void> {
    const nextResize = this.resizes[0]?.at;
    const limit = nextResize === undefined ? MIRROR_CHUNK : Math.max(1, Math.min(MIRROR_CHUNK, nextResize - this.parsed));
    let slice;
    try {
      slice = this.deps.service.read(this.id, { cursor: this.parsed, maxBytes: limit });
    } catch {
      this.settleWaiters(true); // removed meanwhile; pty.removed disposes us
      return;
    }
    this.end = Math.max(this.end, slice.end);
    if (slice.data.length > 0) {
      this.busy = true;
      try {
        await this.screen().write(slice.data);
      } catch (error) {
        // The slice cannot be fed again without doubling whatever part of it
        // was parsed, so the mirror moves past it: its screen may be off until
        // later output repaints it, which beats a mirror that never parses
        // again and snapshots that never resolve.
        if (!this.failed) this.deps.reportError(error, `the screen mirror of session ${this.id} failed to parse output; later failures of this mirror are not reported`);
        this.failed = true;
      } finally {
        this.busy = false;
      }
    }
    // Only this mirror writes, one slice at a time: the screen now reflects exactly [.., next).
    this.parsed = slice.next;
    this.applyDueResizes();
    this.settleWaiters(slice.data.length === 0);
  }

  private applyDueResizes(): void {
    while (this.resizes.length > 0 && this.resizes[0]!.at <= this.parsed) {
      const { cols, rows } = this.resizes.shift()!;
      this.mirrorSize = { cols, rows };
      if (this.mirror && !this.disposed && (cols !== this.mirror.cols || rows !== this.mirror.rows)) this.mirror.resize(cols, rows);
    }
  }

  private logEnd(): number {
    try {
      return this.deps.service.read(this.id, { maxBytes: 1 }).end;
    } catch {
      return this.parsed;
    }
  }

  private take(): ScreenSnapshot {
    if (this.disposed) return { screen: '', cursor: this.parsed };
    return { screen: this.screen().serialize({ scrollback: MIRROR_SCROLLBACK }), cursor: this.parsed };
  }

  /** Resolves the snapshots whose target has been parsed (all of them when `all`). */
  private settleWaiters(all: boolean): void {
    const due = this.waiters.filter((w) => all || w.target <= this.parsed);
    if (due.length === 0) return;
    this.waiters = this.waiters.filter((w) => !due.includes(w));
    for (const waiter of due) waiter.resolve();
  }
}

/**
 * Background parsing for every mirror together, one slice at a time in
 * turn, pausing after each so parsing takes at most BACKGROUND_DUTY of the
 * time however many sessions flood at once.
 */
class BackgroundScheduler {
  private readonly queue: SessionMirror[] = [];
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private disposed = false;

  constructor(private readonly reportError: ErrorReporter) {}

  request(mirror: SessionMirror): void {
    if (!this.queue.includes(mirror)) this.queue.push(mirror);
    this.kick();
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.timer);
    this.queue.length = 0;
  }

  private kick(): void {
    if (this.running || this.timer || this.disposed) return;
    const mirror = this.queue.shift();
    if (!mirror) return;
    this.running = true;
    mirror.backgroundSlice().then(
      (spent) => this.sliceDone(mirror, spent),
      (error: unknown) => {
        // Not `running` for good: that would stop background parsing for every mirror.
        this.reportError(error, `background parsing of session ${mirror.id}'s screen failed`);
        this.sliceDone(mirror, null);
      },
    );
  }

  /** Requeues the mirror unless it is done (`spent` null) and pauses before the next slice. */
  private sliceDone(mirror: SessionMirror, spent: number | null): void {
    this.running = false;
    if (spent !== null) this.queue.push(mirror);
    const pause = Math.max(MIN_PAUSE_MS, (spent ?? 0) * (1 / BACKGROUND_DUTY - 1));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.kick();
    }, pause);
    this.timer.unref();
  }
}

/** Keeps one mirror per session of a service, created and disposed with the sessions. */
export class SessionMirrors {
  private readonly mirrors = new Map<SessionId, SessionMirror>();
  private readonly deps: MirrorDeps;
  private readonly subscriptions = new DisposableStore();

  constructor(
    private readonly service: PtyService,
    options: SessionMirrorsOptions = {},
  ) {
    const report = options.reportError ?? reportError;
    this.deps = {
      service,
      scheduler: new BackgroundScheduler(report),
      createScreen: options.createScreen ?? ((screen) => new ScreenMirror(screen)),
      reportError: report,
    };
    this.subscriptions.add(service.on('pty.created', (e) => this.ensure(e.info)));
    this.subscriptions.add(service.on('pty.updated', (e) => this.ensure(e.info).resized(e.info.cols, e.info.rows)));
    this.subscriptions.add(service.on('pty.data', (e) => this.mirrors.get(e.id)?.grew(e.cursor + e.data.length)));
    this.subscriptions.add(
      service.on('pty.removed', (e) => {
        this.mirrors.get(e.id)?.dispose();
        this.mirrors.delete(e.id);
      }),
    );
    for (const info of service.list()) this.ensure(info);
  }

  snapshot(id: SessionId): Promise<ScreenSnapshot> {
    const info = this.service.get(id);
    if (!info) return Promise.resolve({ screen: '', cursor: 0 });
    return this.ensure(info).snapshot();
  }

  /** How far a session's mirror has parsed its log (undefined for an unknown session): for tests and diagnostics. */
  parsedThrough(id: SessionId): number | undefined {
    return this.mirrors.get(id)?.parsedThrough;
  }

  dispose(): void {
    this.subscriptions.dispose();
    this.deps.scheduler.dispose();
    for (const mirror of this.mirrors.values()) mirror.dispose();
    this.mirrors.clear();
  }

  private ensure(info: SessionInfo): SessionMirror {
    let mirror = this.mirrors.get(info.id);
    if (!mirror) {
      mirror = new SessionMirror(this.deps, info.id, info.cols, info.rows);
      this.mirrors.set(info.id, mirror);
    }
    return mirror;
  }
}
