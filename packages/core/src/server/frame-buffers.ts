/**
 * The buffers a panel connection copies output frames into, each used again
 * once the socket has written it. A new buffer per frame was a new backing
 * store per 64 KiB for V8 to count toward its next full GC (external memory
 * since the last one counts against the heap's limit), and on a heap the
 * idle-time GC had shrunk, a flood ran one every few hundred milliseconds.
 *
 * A buffer may be taken back only once nothing reads it any more: after the
 * socket's write callback for the frame that carries it, which fires once the
 * kernel has the bytes or the write failed. One never given back is simply
 * collected.
 */
export class FrameBuffers {
  private readonly spare: Uint8Array[] = [];

  constructor(
    /** Bytes in each buffer: the largest frame. */
    readonly size: number,
    /** Buffers kept for reuse; more in flight than this are made new and dropped after. */
    private readonly maxSpare: number,
  ) {}

  /** A buffer of `size` bytes, its contents whatever it last held. */
  take(): Uint8Array {
    return this.spare.pop() ?? new Uint8Array(this.size);
  }

  /** Takes back a buffer from take() that nothing reads any more. */
  give(buffer: Uint8Array): void {
    if (buffer.byteLength === this.size && this.spare.length < this.maxSpare) this.spare.push(buffer);
  }
}
