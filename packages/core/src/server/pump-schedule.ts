// When a panel's viewers are pumped after their sessions' output arrives (viewer-streams.ts does the pumping).
import { FLOOD } from '../pty/flood.js';

/**
 * Output that arrives within this long of the previous send waits for the
 * next one, so a flood goes out in full frames instead of one frame (and one
 * socket write) per PTY read of about 4 KiB: those writes were most of the
 * core's CPU while delivering a flood.
 */
const COALESCE_MS = 2;

/**
 * Pumps output after a quiet spell at once; interactive output and a read
 * thread's batches (chunks of at least `batchBytes`: the event loop reads at
 * most 4095 bytes at a time, the thread hands on several batches a task,
 * 256 KiB a turn, see ReadThread) together at the end of the task that handed
 * them on, in one corked pump, rather than the first at once and the rest on
 * the coalescing timer, which woke the loop again for them; the rest of a
 * flood at most every COALESCE_MS.
 */
export class PumpSchedule<V> {
  /** When output was last pumped, and the viewers waiting for the next pump. */
  private lastPump = Number.NEGATIVE_INFINITY;
  private readonly due = new Set<V>();
  private timer: NodeJS.Timeout | undefined;
  /** Whether a pump at the end of this task is queued, and whether it carries a read thread's batch. */
  private atTaskEnd = false;
  private batchAtTaskEnd = false;
  private disposed = false;

  /**
   * `pumpOne` pumps a viewer now; `pumpMany` pumps several in one corked write
   * (one function for every caller, so the call in there stays monomorphic).
   */
  constructor(
    private readonly pumpOne: (viewer: V) => void,
    private readonly pumpMany: (viewers: V[]) => void,
    private readonly batchBytes: number,
  ) {}

  /** The viewer's session has `chunkBytes` more output. */
  output(viewer: V, chunkBytes: number): void {
    // A smaller chunk is interactive output (an echo, a prompt), sent in this task whatever else streams;
    // a flood is known by its first full read, since its frames are worth coalescing from the start.
    // Both at the end of the task, in one corked write with whatever else the task handed on: the read
    // thread's batches include small ones (a read that found little), and each such chunk pumped at
    // once sent what was due in frames written one by one, a writev each (bench/README.md, "Figure 2's
    // warm acks and pumps"). A keystroke's echo still leaves in the task its read ran in.
    if (chunkBytes < FLOOD.readBytes || chunkBytes >= this.batchBytes) {
      this.due.add(viewer);
      // Only a batch counts as the send the coalescing waits COALESCE_MS after, as when an echo went at once.
      if (chunkBytes >= this.batchBytes) this.batchAtTaskEnd = true;
      if (!this.atTaskEnd) {
        this.atTaskEnd = true;
        queueMicrotask(this.pumpTaskEnd);
      }
      return;
    }
    if (this.timer !== undefined) {
      this.due.add(viewer);
      return;
    }
    const now = performance.now();
    const wait = this.lastPump + COALESCE_MS - now;
    if (wait <= 0) {
      this.lastPump = now;
      this.pumpOne(viewer);
      return;
    }
    this.due.add(viewer);
    this.timer = setTimeout(this.pumpDue, wait);
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.due.clear();
  }

  /** The pump at the end of a task that handed on batches or interactive output: it takes the timer's viewers too, so the timer goes. */
  private readonly pumpTaskEnd = (): void => {
    this.atTaskEnd = false;
    if (this.disposed) return;
    clearTimeout(this.timer);
    const stamp = this.batchAtTaskEnd;
    this.batchAtTaskEnd = false;
    this.pumpAll(stamp);
  };

  /** The coalesced pump: one function for every timer, not a closure each. */
  private readonly pumpDue = (): void => this.pumpAll(true);

  /** Pumps every viewer due, corked; `stamp`: this counts as the send the next coalescing waits after. */
  private pumpAll(stamp: boolean): void {
    this.timer = undefined;
    if (stamp) this.lastPump = performance.now();
    const due = [...this.due];
    this.due.clear();
    this.pumpMany(due);
  }
}
