// Where the output logs' buffers come from and go back to: pooled slabs, and the read thread's batches a log adopted.
import { BufferPool } from './buffer-pool.js';
import type { SlabPool } from './output-log.js';
import { BATCH_BYTES } from './read-thread-protocol.js';

/**
 * The SlabPool of a service's logs. Slabs come from and go back to a
 * BufferPool; a read thread batch a log kept instead of copying it
 * (OutputLog.adopt) goes back to the thread once trimmed, to be filled again,
 * so a flood's batches circulate instead of each being new memory for the GC.
 */
export class LogBuffers implements SlabPool {
  private readonly slabs: BufferPool;

  constructor(
    slabBytes: number,
    spareSlabs: number,
    /** Gives a whole batch buffer back to the read thread (ReadThread.reuse). */
    private readonly reuseBatch: (buffer: ArrayBuffer) => void,
  ) {
    if (slabBytes === BATCH_BYTES) throw new RangeError('slabs and read thread batches are told apart by their size');
    this.slabs = new BufferPool(slabBytes, spareSlabs);
  }

  get size(): number {
    return this.slabs.size;
  }

  take(): Uint8Array {
    return this.slabs.take();
  }

  give(buffer: Uint8Array): void {
    if (buffer.byteLength === BATCH_BYTES && buffer.buffer.byteLength === BATCH_BYTES) this.reuseBatch(buffer.buffer as ArrayBuffer);
    else this.slabs.give(buffer);
  }
}

/**
 * Whether a read thread batch is kept by the log rather than copied: when
 * nearly full, so what the log holds stays within a sixteenth of what it
 * retains (a flood's batches leave less than a PTY read, 4 KiB, unfilled).
 */
export function adoptable(chunk: Uint8Array): boolean {
  return chunk.byteOffset === 0 && chunk.buffer.byteLength === BATCH_BYTES && chunk.length > BATCH_BYTES - 4096;
}
