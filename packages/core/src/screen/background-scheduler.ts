import type { ErrorReporter, SessionId } from '@ptydeck/contract';

/** Share of wall time background catch-up may parse: the rest belongs to the PTYs and the sockets. */
const BACKGROUND_DUTY = 0.2;
/** Floor on the pause between background slices. */
const MIN_PAUSE_MS = 5;

/** A session's screen as the scheduler sees it: something that parses one slice at a time. */
export interface BackgroundParse {
  readonly id: SessionId;
  /** Parses one slice; resolves with the milliseconds spent, or null when there is nothing left to do. */
  backgroundSlice(): Promise<number | null>;
}

/**
 * Background parsing for every session's screen together, one slice at a
 * time in turn, pausing after each so parsing takes at most BACKGROUND_DUTY
 * of the time however many sessions flood at once.
 */
export class BackgroundScheduler {
  private readonly queue: BackgroundParse[] = [];
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private disposed = false;

  constructor(private readonly reportError: ErrorReporter) {}

  request(screen: BackgroundParse): void {
    if (!this.queue.includes(screen)) this.queue.push(screen);
    this.kick();
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.timer);
    this.queue.length = 0;
  }

  private kick(): void {
    if (this.running || this.timer || this.disposed) return;
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
    const pause = Math.max(MIN_PAUSE_MS, (spent ?? 0) * (1 / BACKGROUND_DUTY - 1));
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.kick();
    }, pause);
    this.timer.unref();
  }
}
