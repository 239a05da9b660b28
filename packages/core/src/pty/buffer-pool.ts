/**
 * Fixed-size byte buffers handed out and taken back, so a flood fills the
 * same memory again instead of new buffers: V8 counts every new backing
 * store toward its next full GC (external memory allocated since the last
 * one counts against the heap's limit), and on a heap the idle-time GC had
 * shrunk, a flood of new 64 KiB buffers ran one every few hundred
 * milliseconds. The read thread's batches and a panel connection's frames
 * come from one each.
 *
 * A buffer may be given back only once nothing reads or writes it any more;
 * one never given back is simply collected.
 */
export class BufferPool {
  private readonly spare: Uint8Array[] = [];

  constructor(
    /** Bytes in each buffer. */
    readonly size: number,
    /** Buffers kept for reuse; more given back than this are dropped. */
    private readonly maxSpare: number,
  ) {}

  /** A buffer of `size` bytes, its contents whatever it last held. */
  take(): Uint8Array {
    return this.spare.pop() ?? new Uint8Array(this.size);
  }

  /** Takes back a whole buffer of `size` bytes that nothing uses any more; any other is left to the GC. */
  give(buffer: Uint8Array): void {
    if (buffer.byteOffset === 0 && buffer.byteLength === this.size && buffer.buffer.byteLength === this.size && this.spare.length < this.maxSpare) {
      this.spare.push(buffer);
    }
  }
}
