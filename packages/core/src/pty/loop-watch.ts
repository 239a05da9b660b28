// When the event loop was last seen free to handle the I/O waiting for it: what tells a quiet session from a stalled loop.
/**
 * A session is quiet when it printed nothing for a while, but "nothing
 * arrived" also happens when the main thread itself was busy (a long
 * synchronous handler, a GC pause): its reads then wait in the kernel and all
 * arrive at once afterwards, each after a long gap. Judged by the wall clock
 * alone, every flood looked quiet after a 60 ms stall, lost its run, and the
 * turns read them all side by side again (flood-fairness.test.ts, with a
 * stalling listener).
 *
 * So a gap counts from when the loop was last *seen free*: a timer's tick,
 * taken in a setImmediate, which runs after the poll phase of the same loop
 * iteration, that is after the reads that were waiting when the timer fired.
 * The watch ticks only while someone asked it to (keepUntil), so an idle
 * core runs no timer; nor does a trickle (an echo, a prompt), whose reads
 * judge its pauses themselves (flood.ts, trickleAfterPause).
 */
export interface LoopClock {
  /** The latest moment the loop was seen free, after the I/O that was waiting then. */
  freeAt(): number;
  /** Keep seeing the loop until at least `until` (on the same clock). */
  keepUntil(until: number): void;
  dispose(): void;
}

export class LoopWatch implements LoopClock {
  private seenAt: number;
  private wantedUntil = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;

  constructor(
    private readonly tickMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.seenAt = now();
  }

  freeAt(): number {
    return this.seenAt;
  }

  keepUntil(until: number): void {
    if (until > this.wantedUntil) this.wantedUntil = until;
    this.arm();
  }

  dispose(): void {
    clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    this.timer = undefined;
    this.immediate = undefined;
    this.wantedUntil = Number.NEGATIVE_INFINITY;
  }

  private arm(): void {
    if (this.timer || this.immediate || this.seenAt >= this.wantedUntil) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.immediate = setImmediate(() => {
        this.immediate = undefined;
        this.seenAt = this.now();
        this.arm();
      });
    }, this.tickMs);
    this.timer.unref();
  }
}
