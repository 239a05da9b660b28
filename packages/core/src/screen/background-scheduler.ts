// Takes every session's background screen parsing in turns within a budget, so parsing never crowds out the PTYs
// and sockets.
import type { ErrorReporter, SessionId } from '@ptydeck/contract';

/** How much of the time background parsing may take, and the least pause between two slices. */
export interface BackgroundBudget {
  duty: number;
  minPauseMs: number;
}

/** On the main thread: a fifth of wall time; the rest belongs to the PTYs and the sockets. */
export const MAIN_THREAD_BUDGET: BackgroundBudget = { duty: 0.2, minPauseMs: 5 };

/**
 * In the screen worker: a slice costs the main thread only a log copy and a
 * message, so slices follow each other at once (a duty of 1 leaves no
 * pause). A flood is not parsed in the background at all until it ends
 * (SessionScreen): on two cores, a worker parsing floods, even for a
 * quarter of the time, took CPU the flood's own delivery needed.
 */
export const WORKER_BUDGET: BackgroundBudget = { duty: 1, minPauseMs: 0 };

/** A session's screen as the scheduler sees it: something that parses one slice at a time. */
export interface BackgroundParse {
  readonly id: SessionId;
  /** Parses one slice; resolves with the milliseconds to charge to the budget, or null when there is nothing left to do. */
  backgroundSlice(): Promise<number | null>;
}

/**
 * Background parsing for every session's screen together, one slice at a
 * time in turn (so a read's catch-up waits behind at most one other
 * session's slice), pausing after each so the slices charged take at most
 * the budget's share of the time however many sessions flood at once.
 */
export class BackgroundScheduler {
  private readonly queue: BackgroundParse[] = [];
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  private disposed = false;
  /** A kick queued for after the turn's I/O callbacks (see request). */
  private kickQueued: NodeJS.Immediate | undefined;

  constructor(
    private readonly reportError: ErrorReporter,
    /** Asked after every slice: the screens may move to this thread (a worker that gave up). */
    private readonly budget: () => BackgroundBudget = () => MAIN_THREAD_BUDGET,
  ) {}

  /**
   * Queues a screen; its slice starts after the current turn's I/O callbacks
   * (in a setImmediate), not inside the call nor in a microtask. A screen asks
   * from within a PTY's data event, whose later listeners send that output to
   * the panels, themselves in a microtask queued after ours (PumpSchedule): a
   * slice started there or in our microtask posted the output to the worker
   * before the panel's frame was written, and the worker's thread, woken by
   * that, took the CPU from the echo on two busy cores (bench README, figure
   * 15: 17 of 60 remote keys in the box's host had the post first). The data
   * event that ends an agent's terminal_run likewise resolves a promise chain
   * that answers the agent in that turn's microtasks, which a microtask kick
   * went ahead of (bench README, "Figure 4's hops").
   */
  request(screen: BackgroundParse): void {
    if (!this.queue.includes(screen)) this.queue.push(screen);
    if (this.kickQueued !== undefined) return;
    this.kickQueued = setImmediate(() => {
      this.kickQueued = undefined;
      this.kick();
    });
    this.kickQueued.unref();
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.timer);
    clearImmediate(this.immediate);
    clearImmediate(this.kickQueued);
    this.queue.length = 0;
  }

  private kick(): void {
    if (this.running || this.timer || this.immediate || this.disposed) return;
    const screen = this.queue.shift();
    if (!screen) return;
    this.running = true;
    screen.backgroundSlice().then(
      (spent) => this.sliceDone(screen, spent),
      (error: unknown) => {
        // Not `running` for good: that would stop background parsing for every screen.
        this.reportError(error, `background parsing of session ${screen.id}'s screen failed`);
        this.sliceDone(screen, null);
      },
    );
  }

  /** Requeues the screen unless it is done (`spent` null) and pauses before the next slice. */
  private sliceDone(screen: BackgroundParse, spent: number | null): void {
    this.running = false;
    if (spent !== null) this.queue.push(screen);
    const { duty, minPauseMs } = this.budget();
    const pause = Math.max(minPauseMs, (spent ?? 0) * (1 / duty - 1));
    if (pause === 0) {
      // After pending I/O, not before: PTY reads and socket writes come first.
      this.immediate = setImmediate(() => {
        this.immediate = undefined;
        this.kick();
      });
      this.immediate.unref();
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.kick();
    }, pause);
    this.timer.unref();
  }
}
