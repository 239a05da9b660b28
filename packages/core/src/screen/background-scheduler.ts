import type { ErrorReporter, SessionId } from '@ptydeck/contract';

/** Share of wall time background catch-up may parse on the main thread: the rest belongs to the PTYs and the sockets. */
export const MAIN_THREAD_DUTY = 0.2;
/** Floor on the pause between background slices on the main thread. */
const MIN_PAUSE_MS = 5;

/** A session's screen as the scheduler sees it: something that parses one slice at a time. */
export interface BackgroundParse {
  readonly id: SessionId;
  /** Parses one slice; resolves with the milliseconds spent, or null when there is nothing left to do. */
  backgroundSlice(): Promise<number | null>;
}

/**
 * Background parsing for every session's screen together, one slice at a
 * time in turn. On the main thread it pauses after each slice so parsing
 * takes at most MAIN_THREAD_DUTY of the time however many sessions flood at
 * once. For screens in the worker a slice costs the main thread only a log
 * copy and a message, so the next follows at once; one at a time still, so a
 * read's catch-up waits behind at most one other session's slice.
 */
export class BackgroundScheduler {
  private readonly queue: BackgroundParse[] = [];
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  private disposed = false;

  /** `duty`: the share of wall time slices may take; 1 for slices that only hand bytes to the worker. */
  constructor(
    private readonly reportError: ErrorReporter,
    private readonly duty = MAIN_THREAD_DUTY,
  ) {}

  request(screen: BackgroundParse): void {
    if (!this.queue.includes(screen)) this.queue.push(screen);
    this.kick();
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.timer);
    clearImmediate(this.immediate);
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
    if (this.duty >= 1) {
      // After pending I/O, not before: PTY reads and socket writes come first.
      this.immediate = setImmediate(() => {
        this.immediate = undefined;
        this.kick();
      });
      this.immediate.unref();
      return;
    }
    const pause = Math.max(MIN_PAUSE_MS, (spent ?? 0) * (1 / this.duty - 1));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.kick();
    }, pause);
    this.timer.unref();
  }
}
