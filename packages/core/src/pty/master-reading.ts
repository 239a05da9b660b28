// Who reads a terminal's master, the event loop or the read thread, and the handover between them.
import { FLOOD, trickleAfterPause } from './flood.js';
import type { LoopClock } from './loop-watch.js';
import type { LoopReading, NodePtyMaster } from './node-pty-adapter.js';
import type { ReadThread, ThreadRead } from './read-thread.js';

/**
 * Who reads a terminal's master, and whether it is read at all.
 *
 * The event loop reads it through node-pty's socket, until the terminal
 * floods: `afterBytes` without a pause of FLOOD_QUIET_MS. Then the loop stops
 * and the read thread (read-thread.ts) reads it, until it is quiet again and
 * comes back. Either reader can be held (a flood waiting its turn, see
 * flood-turns.ts) and let go. Only one reader ever reads, and a handover waits
 * for the last byte of the one before, so bytes reach `deliver` in order.
 *
 * Stopping the loop means stopping libuv's read at once: a paused Readable
 * keeps reading until its buffer passes the high-water mark, and a chunk read
 * after the thread's first would arrive out of order. So the socket's handle
 * is stopped directly, and its _read() kept from restarting it
 * (node-pty-adapter.ts, loopReading). Where Node's internals for that are not
 * found, the loop is paused through node-pty's public API and always reads.
 */
export interface ThreadReading {
  /** The read thread, started on first use; undefined when it cannot run. */
  thread(): ReadThread | undefined;
  /** Bytes of one run of output after which the thread reads. */
  afterBytes: number;
  /**
   * When the loop was last seen free (loop-watch.ts): a stalled loop's gap is
   * no pause in the run. Absent: the wall clock (a stall then ends the run).
   */
  loop?: LoopClock;
  /** A pause this long ends a run; default FLOOD_QUIET_MS. */
  quietMs?: number;
}

/** A pause this long ends a run of output: the flood's own measure, as the turns' (flood-turns.ts). */
const FLOOD_QUIET_MS = FLOOD.quietMs;

export class MasterReading {
  private held = false;
  private onThread: ThreadRead | undefined;
  private closing = false;
  private run = 0;
  private lastReadAt = Number.NEGATIVE_INFINITY;
  private readonly loop: LoopReading;

  constructor(
    /** The terminal's master; when the thread finds it closed, it is closed as libuv's EOF would. */
    private readonly master: Pick<NodePtyMaster, 'fd' | 'destroyed' | 'close' | 'loopReading'>,
    /** `reusable`: a read thread batch, lent for the call, then given back (ReadThread.reuse). */
    private readonly deliver: (chunk: Buffer, reusable: boolean) => void,
    private readonly threadReading?: ThreadReading,
  ) {
    // Closing: the fd is the closer's until it is closed (the thread may still be handing on what it read).
    this.loop = master.loopReading(() => !(this.held || this.onThread || this.closing));
  }

  /** A chunk the event loop read. */
  fromLoop(chunk: Buffer): void {
    this.deliver(chunk, false);
    const options = this.threadReading;
    if (!options || options.afterBytes <= 0) return;
    const now = performance.now();
    const quietMs = options.quietMs ?? FLOOD_QUIET_MS;
    const trickle = chunk.length < FLOOD.readBytes;
    if ((options.loop?.freeAt() ?? now) - this.lastReadAt >= quietMs || trickleAfterPause(chunk.length, now - this.lastReadAt, quietMs)) this.run = 0;
    this.lastReadAt = now;
    // A trickle's pause is judged by its next read alone (trickleAfterPause); only fuller reads keep the watch.
    if (!trickle) options.loop?.keepUntil(now + quietMs);
    this.run += chunk.length;
    if (this.run >= options.afterBytes && !this.held && !this.closing && !this.onThread) this.toThread(options);
  }

  /** Stops reading (its writer blocks once the kernel's buffer is full); output already read still arrives. */
  pause(): void {
    if (this.held) return;
    this.held = true;
    if (this.onThread) this.onThread.hold();
    else this.loop.stop();
  }

  /** Whether output the read thread read for this terminal waits to be handed on. */
  pending(): boolean {
    return this.onThread?.pending() ?? false;
  }

  resume(): void {
    if (!this.held) return;
    this.held = false;
    if (this.onThread) this.onThread.go();
    else this.loop.start();
  }

  /**
   * Before the fd closes: the thread lets go of it at once, and what it had
   * read is delivered first, in turns; the promise settles after the last of
   * it (undefined: nothing was pending, the fd may close now).
   */
  close(): Promise<void> | undefined {
    this.closing = true;
    const onThread = this.onThread;
    this.onThread = undefined;
    return onThread?.release();
  }

  private toThread(options: ThreadReading): void {
    // A loop that cannot stop at once could read a chunk after the thread's first.
    if (!this.loop.instant) return;
    const thread = options.thread();
    if (!thread?.alive || this.master.destroyed) return;
    this.loop.stop();
    this.run = 0;
    this.onThread = thread.adopt(this.master.fd, {
      data: (chunk, reusable) => this.deliver(chunk, reusable),
      quiet: () => this.backToLoop(),
      ended: () => {
        // The terminal is done: no reader again, the owner closes it (unless it is already closing).
        this.onThread = undefined;
        if (!this.closing) this.master.close();
      },
    });
  }

  private backToLoop(): void {
    this.onThread = undefined;
    if (!this.held && !this.closing) this.loop.start();
  }
}
