/**
 * When a session's screen parses in the background, apart from reads: in the
 * worker (eager) as output arrives, until a flood (a run of bulk output past
 * EAGER_BULK, or more than EAGER_FLOODS sessions in bulk at once) holds it
 * until the session is quiet; on the main thread (lazy) once over
 * LAZY_BACKLOG is waiting or the session has been quiet for QUIET_MS. The
 * policy and its quiet timer, for one screen; SessionScreen does the parsing.
 */
import { FLOOD } from '../pty/flood.js';

/**
 * Largest slice fed to a mirror at once in the background: small, so a read
 * waits behind little of another session's output.
 */
export const MIRROR_CHUNK = 64 * 1024;
/**
 * Sessions whose bulk output is parsed as it arrives at once; when more
 * flood together, none is. A hundred sessions flooding at once, each within
 * EAGER_BULK, kept the worker parsing 100 MiB eagerly on two cores that
 * the floods already filled, and an agent's screen read waited behind it.
 */
const EAGER_FLOODS = 2;
/**
 * A run of bulk output parsed as it arrives before it counts as a flood
 * here: four times FLOOD.runBytes, because the worker's thread is otherwise
 * idle, and a megabyte (a build's log, a reload's worth) parsed at once is
 * ready when a viewer comes back. Past it, parsing it took CPU the flood's
 * own delivery needed.
 */
const EAGER_BULK = 4 * FLOOD.runBytes;
/** Unparsed output a mirror in this thread tolerates before it starts catching up in the background. */
const LAZY_BACKLOG = 1024 * 1024;
/** Background catch-up stops once the backlog is this small again. */
const LAZY_RESUME = 256 * 1024;
/** A session this long without output counts as quiet: its mirror then catches up in the background. */
const QUIET_MS = 100;
/**
 * How long output waits before eager parsing takes it (see queueEager):
 * longer than an echo's round trip. A read meanwhile parses what it needs
 * itself, so no reader waits for it.
 */
const EAGER_DELAY_MS = 20;
/**
 * When no more output comes to take it (see queueEager), the timer takes
 * interactive output (a trickle, EAGER_TRICKLE) this long after the first of
 * it: past EAGER_DELAY_MS, so that output that keeps coming (keys typed one
 * after another) is taken by the output that finds it EAGER_DELAY_MS old, not
 * by the timer. Bulk output is the timer's at EAGER_DELAY_MS, as before.
 */
const EAGER_TIMER_MS = 2 * EAGER_DELAY_MS;
/**
 * Output that arrived while an eager slice parsed, no more than this (keys
 * typed meanwhile, an echo or two: FLOOD.readBytes, what the panels send at
 * once as interactive), waits for the next eager take (queueEager) instead
 * of a slice of its own at once (see caughtUp).
 */
const EAGER_TRICKLE = FLOOD.readBytes;

export interface BackgroundPacingDeps {
  /** Parse output as it arrives (see SessionScreenDeps.eager). */
  eager(): boolean;
  /**
   * The pacings of screens in a run of bulk output (more than a slice
   * behind), shared by all of a service's screens: when more than
   * EAGER_FLOODS of them flood at once, none of their floods is parsed
   * eagerly (see floodRunsOn).
   */
  bulk: Set<BackgroundPacing>;
  /** Cursor one past the last byte the screen parsed. */
  parsed(): number;
  /** One past the newest byte known to be in the log. */
  end(): number;
  /** Queues the screen with the background scheduler. */
  request(): void;
}

/** The background parsing of one session's screen: when it is queued, and when it stops. */
export class BackgroundPacing {
  /** Queued with the background scheduler. */
  private background = false;
  /** The background catch-up goes all the way to the end (the session is quiet), not just under LAZY_RESUME. */
  private toEnd = false;
  /** Where the current run of bulk output began (parsing more than a slice behind), or undefined outside one. */
  private bulkFrom: number | undefined;
  /**
   * Eager parsing stopped for a flood (bulk past EAGER_BULK, or bulk
   * while more than EAGER_FLOODS sessions flood) until the session goes
   * quiet: reads and resyncs during it parse what they need (at most
   * twice what they keep, see skimTarget), and the quiet catch-up skims to the end.
   */
  private flooding = false;
  /**
   * Where the log ended when an eager slice of this run of bulk output began
   * that had to skim (see outran).
   */
  private outrunFrom: number | undefined;
  /** No output since the session went quiet: its catch-up is not a flood. */
  private afterQuiet = false;
  /** When output last arrived, and the timer that checks for quiet (one at a time, re-armed lazily). */
  private lastOutputAt = 0;
  private quietTimer: NodeJS.Timeout | undefined;
  /** A slice parsed since the screen was queued: a trickle left behind it waits (see caughtUp). */
  private sliced = false;
  /** Eager parsing waits for this (see queueEager). */
  private eagerTimer: NodeJS.Timeout | undefined;
  /** When the first output eager parsing has not taken arrived, and whether more than a trickle waits (see queueEager). */
  private eagerFrom = 0;
  private eagerBulk = false;
  private disposed = false;

  constructor(private readonly deps: BackgroundPacingDeps) {}

  /** Output entered the log (end() has moved). */
  grew(): void {
    this.afterQuiet = false;
    const eager = this.deps.eager();
    if (eager && !this.flooding) {
      this.toEnd = true;
      this.queueEager();
      return;
    }
    this.toEnd = false; // not quiet any more
    this.lastOutputAt = performance.now();
    // Per chunk only a timestamp: the timer is armed once and re-armed when it fires early.
    this.quietTimer ??= this.armQuietTimer(QUIET_MS);
    if (!eager && this.deps.end() - this.deps.parsed() > LAZY_BACKLOG) this.queue();
  }

  /**
   * The backlog is small enough again (none at all once the session is
   * quiet): background parsing may stop. Eager parsing also stops at a
   * trickle (EAGER_TRICKLE) that came during its slice: the scheduler took
   * the next slice at once, in a setImmediate after the turn that brought
   * the worker's answer, which was often the turn of a typed key's input, so
   * that slice's post, too, went between the key's write to the terminal and
   * its echo's read (bench README, "Figure 3's eager posts").
   */
  caughtUp(): boolean {
    const behind = this.deps.end() - this.deps.parsed();
    if (behind <= (this.toEnd ? 0 : LAZY_RESUME)) return true;
    return this.sliced && this.deps.eager() && !this.flooding && !this.afterQuiet && this.bulkFrom === undefined && behind <= EAGER_TRICKLE;
  }

  /** A background slice is about to parse: what arrives from now on, if a trickle, waits (see caughtUp). */
  slicing(): void {
    this.sliced = true;
  }

  /** The scheduler has dropped the screen: the next output or quiet spell queues it again; a trickle left (see caughtUp) waits as new output does. */
  stopped(): void {
    this.background = false;
    this.sliced = false;
    if (this.deps.eager() && !this.flooding && !this.afterQuiet && this.deps.end() > this.deps.parsed()) this.queueEager();
  }

  /**
   * Whether the next background slice waits for the session to go quiet:
   * a flood in the worker. Parsing it in the background, even at a quarter
   * of the time, took CPU its delivery needed (bench figure 2, two cores),
   * and a read during it skims most of it anyway. True: the screen has been
   * dropped from the scheduler until then.
   */
  holdsForFlood(): boolean {
    if (!(this.deps.eager() && this.floodRunsOn())) return false;
    this.flooding = true;
    this.background = false;
    this.lastOutputAt = performance.now();
    this.quietTimer ??= this.armQuietTimer(QUIET_MS);
    return true;
  }

  /**
   * An eager slice that began with the log ending at `end` skimmed (the
   * backlog was past what a resync keeps). If more output came meanwhile, the
   * output comes faster than the worker parses it: a flood, whatever its
   * length so far, and the next slice holds for it. Parsed on up to
   * EAGER_BULK, a flood outran every slice in turn, each skimming what arrived
   * while the last was parsed and then parsing a kept tail that the next
   * skim skipped, on the two cores its delivery needed (bench README, figure
   * 2). Once quiet, the catch-up parses from the skim's end, as a read during
   * the flood does. Output that ended before the slice (a build's log) is
   * parsed on at once.
   */
  outran(end: number): void {
    if (this.deps.eager() && !this.afterQuiet) this.outrunFrom = end;
  }

  dispose(): void {
    this.disposed = true;
    this.endBulk();
    clearTimeout(this.quietTimer);
    this.quietTimer = undefined;
    clearTimeout(this.eagerTimer);
    this.eagerTimer = undefined;
  }

  /**
   * Eager parsing in the worker goes on up to EAGER_BULK of bulk output (a
   * build's log, a reload's worth: ready when a viewer comes back) and stops
   * past it, for a flood, until the session is quiet; so it does for every
   * session in bulk while more than EAGER_FLOODS are. Output that fits a
   * slice (a prompt, an echo) ends a run of bulk.
   */
  private floodRunsOn(): boolean {
    const { bulk } = this.deps;
    const parsed = this.deps.parsed();
    if (this.deps.end() - parsed <= MIRROR_CHUNK) {
      this.endBulk();
      return false;
    }
    // Catching up once quiet is not a flood, however many catch up together (skimming bounds each).
    if (this.afterQuiet) return false;
    this.bulkFrom ??= parsed;
    bulk.add(this);
    const outrun = this.outrunFrom !== undefined && this.deps.end() > this.outrunFrom;
    return outrun || parsed - this.bulkFrom > EAGER_BULK || bulk.size > EAGER_FLOODS;
  }

  private endBulk(): void {
    this.outrunFrom = undefined;
    this.bulkFrom = undefined;
    this.deps.bulk.delete(this);
  }

  /**
   * Queues eager parsing EAGER_DELAY_MS after the first output it has not
   * taken, with whatever else arrives meanwhile. Queued at once, typed keys
   * echoed one by one went to the worker one post (and two thread wake-ups)
   * each, inside the echo's round trip, where the worker's thread took CPU
   * from the processes passing the echo on: in figure 15 the worker's CPU
   * per remote key went from 155-167 to 52-79 us (bench README).
   *
   * Interactive output (a trickle) is taken by the output that finds it that old, whose data event queues it
   * (the scheduler posts after that turn's other work, after the panels were sent
   * that output), and only by a timer (EAGER_TIMER_MS) when no more output
   * comes. A timer alone fired between a key's input and its echo: libuv
   * runs due timers right after the I/O callbacks of a loop turn, so one that
   * fell due while the key waited for the host ran after the key's write to
   * the terminal and before its echo was read, and the worker it woke took a
   * CPU from the echo's program (bench README, "Figure 3's eager posts").
   */
  private queueEager(): void {
    if (this.background || this.disposed) return;
    const now = performance.now();
    const bulk = this.deps.end() - this.deps.parsed() > EAGER_TRICKLE;
    if (this.eagerTimer === undefined) {
      this.eagerFrom = now;
      this.eagerBulk = bulk;
      this.armEager(bulk ? EAGER_DELAY_MS : EAGER_TIMER_MS);
      return;
    }
    if (bulk) {
      // Bulk output is the timer's, EAGER_DELAY_MS after the first output, as it always was: taken by
      // the output instead, figure 6's first resync came later (bench README, "Figure 3's eager posts").
      if (!this.eagerBulk) {
        this.eagerBulk = true;
        clearTimeout(this.eagerTimer);
        this.armEager(Math.max(0, this.eagerFrom + EAGER_DELAY_MS - now));
      }
      return;
    }
    if (now - this.eagerFrom < EAGER_DELAY_MS) return;
    clearTimeout(this.eagerTimer);
    this.eagerTimer = undefined;
    this.queue();
  }

  private armEager(ms: number): void {
    this.eagerTimer = setTimeout(() => {
      this.eagerTimer = undefined;
      this.queue();
    }, ms);
    this.eagerTimer.unref();
  }

  private queue(): void {
    if (this.background || this.disposed) return;
    this.background = true;
    this.sliced = false;
    this.deps.request();
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
      // The flood is over: catch up (skimming most of it), with a run of bulk of its own.
      this.flooding = false;
      this.endBulk();
      this.afterQuiet = true;
      if (this.deps.end() <= this.deps.parsed()) return;
      this.toEnd = true;
      this.queue();
    }, ms);
    timer.unref();
    return timer;
  }
}
