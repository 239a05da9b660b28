/**
 * The one read thread a PTY service shares among its sessions' masters
 * (ThreadReading): started by the first flood, replaced if it dies, up to
 * MAX_READ_THREAD_DEATHS times, after which the event loop reads everything.
 * It also takes back the batches it lent once a session's log let go of them.
 */
import type { LoopClock } from './loop-watch.js';
import type { ThreadReading } from './master-reading.js';
import { ReadThread } from './read-thread.js';

/** A read thread that died this often is not started again. */
const MAX_READ_THREAD_DEATHS = 3;

export class SharedReadThread implements ThreadReading {
  private current: ReadThread | undefined;
  private deaths = 0;

  constructor(
    /** Bytes of one run of output after which the thread reads. */
    readonly afterBytes: number,
    /** Whether the service is being disposed: no thread is started then. */
    private readonly stopped: () => boolean,
    /** The service's loop watch, shared with its flood turns. */
    readonly loop?: LoopClock,
    /** A pause this long ends a run (PtyServiceOptions.floodQuietMs). */
    readonly quietMs?: number,
  ) {}

  /** The read thread, started on first use; after it died MAX_READ_THREAD_DEATHS times, none (the loop reads everything). */
  thread(): ReadThread | undefined {
    if (this.stopped()) return undefined;
    if (this.current && !this.current.alive) {
      this.current = undefined;
      this.deaths++;
    }
    if (!this.current && this.deaths < MAX_READ_THREAD_DEATHS) this.current = new ReadThread();
    return this.current;
  }

  /** Gives a batch the read thread lent a session's log back to the thread once the log let go of it. */
  readonly reuse = (buffer: ArrayBuffer): void => this.current?.reuse(buffer);

  dispose(): void {
    this.current?.dispose();
    this.current = undefined;
  }
}
