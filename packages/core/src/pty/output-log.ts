import { emptyObjectArray } from '../common/elements-kind.js';
import { isContinuationByte, MAX_CONTINUATION_BYTES } from '../vt/index.js';

/**
 * A session's output, addressed by absolute byte cursors (bytes since the
 * session started). Appends copy into slabs: fixed-size buffers the log fills
 * in turn (a new log's first ones smaller, doubling up to the slab size), so
 * the only memory the log holds is the bytes it bounds, plus the unwritten
 * end of the last slab and the trimmed start of the first. Keeping each chunk
 * as given cost more: a chunk node-pty read is a view of a larger buffer, and
 * every chunk the log trimmed had lived long enough to be promoted, so its
 * memory waited outside V8's heap for a full GC (figure 5 in bench/README.md:
 * 12 to 40 MiB above what the logs retained). Slabs trimmed away go back to
 * the constructor's pool, and the next append fills them again. Trimming
 * drops whole slabs from the front and keeps a view of the tail of the one
 * cut in the middle, so both are O(1) amortized. Reads copy: no view of a
 * slab leaves the log, so a slab can be filled again once it is trimmed.
 *
 * Trimming never leaves a UTF-8 continuation byte at the front: a reader that
 * starts at the oldest retained byte always starts on a character boundary.
 */
export interface LogSlice {
  data: Uint8Array;
  /** Absolute cursor of data[0]. */
  cursor: number;
  /** Cursor to pass to the next read. */
  next: number;
  /** Bytes between the requested cursor and `cursor` that were trimmed away. */
  skipped: number;
}

/**
 * Where a log's full-size slabs come from and go back to (a BufferPool, shared
 * by a service's logs): a flood then fills the memory the last trim freed
 * instead of allocating new buffers that wait for a GC.
 */
export interface SlabPool {
  /** Bytes in each slab. */
  readonly size: number;
  /** A slab of `size` bytes, its contents whatever it last held. */
  take(): Uint8Array;
  /** Takes back a slab nothing reads any more. */
  give(slab: Uint8Array): void;
}

/** Bytes in each slab of a log without a pool, and the most a pool's slabs may be. */
export const SLAB_BYTES = 16 * 1024;
/** A new log's first slab: most logs (a prompt, an agent's `true`) never fill one. */
const FIRST_SLAB_BYTES = 256;

/**
 * Compact the slab array once this many dropped slots sit at its front. Few
 * enough that a session's first flood compacts (4 MiB of trimmed batches):
 * at 1024, a flood first compacted 64 MiB in, in the trim's optimized code,
 * which V8 then threw away (bench/README.md, "The delivery path's
 * deoptimizations"). A compaction moves the live slots, about as many.
 */
const COMPACT_AFTER = 64;

const EMPTY = new Uint8Array(0);

export class OutputLog {
  /**
   * The retained part of each slab, oldest first: views whose buffer is the
   * whole slab. The last one grows as appends fill its slab (`tail`).
   */
  private chunks = emptyObjectArray<Uint8Array>();
  /**
   * Absolute cursor of each chunk's first byte, beside `chunks`, so a read
   * finds its chunk by binary search: walking the list from the nearer end
   * cost a step per chunk between, hundreds for a viewer a window behind.
   */
  private starts: number[] = [];
  /** Index of the oldest retained chunk in `chunks`. */
  private head = 0;
  /** The slab being filled (the buffer of the last chunk), and how much of it is. */
  private tail: Uint8Array = EMPTY;
  private tailUsed = 0;
  private startCursor = 0;
  private endCursor = 0;
  private readonly slabBytes: number;

  /**
   * `pool` lends the full-size slabs and takes them back once trimmed (without one, slabs of SLAB_BYTES are
   * allocated and left to the GC). `startAt`: the absolute cursor of the first byte appended, for a log that
   * carries on one an earlier host kept (a restored session), so cursors handed out before the restart still
   * address the same bytes.
   */
  constructor(
    private readonly pool?: SlabPool,
    startAt = 0,
  ) {
    if (!Number.isSafeInteger(startAt) || startAt < 0) throw new RangeError(`a log starts at a non-negative integer cursor, not ${startAt}`);
    this.slabBytes = pool?.size ?? SLAB_BYTES;
    this.startCursor = startAt;
    this.endCursor = startAt;
  }

  /** Absolute cursor of the oldest retained byte. */
  get start(): number {
    return this.startCursor;
  }

  /** Absolute cursor one past the newest byte. */
  get end(): number {
    return this.endCursor;
  }

  /** Bytes currently retained. */
  get size(): number {
    return this.endCursor - this.startCursor;
  }

  /**
   * Appends a copy of `chunk` (the caller keeps it: a read thread batch goes
   * back to the thread once the call that lent it returns). Returns its cursor.
   */
  append(chunk: Uint8Array): number {
    const cursor = this.endCursor;
    let copied = 0;
    while (copied < chunk.length) {
      if (this.tailUsed === this.tail.length) this.newSlab();
      const count = Math.min(chunk.length - copied, this.tail.length - this.tailUsed);
      this.tail.set(copied === 0 && count === chunk.length ? chunk : chunk.subarray(copied, copied + count), this.tailUsed);
      this.tailUsed += count;
      this.endCursor += count;
      copied += count;
    }
    return cursor;
  }

  /**
   * Appends `batch` by keeping it instead of a copy, and returns its cursor.
   * For a buffer the caller gives up whole and nothing else writes (a read
   * thread batch nearly full: the copy of every flood byte was a fifth of
   * the log's cost per byte delivered, figure 2). `batch` must start its
   * buffer; trimmed, the buffer goes to the pool's give() like a slab (the
   * PTY service's pool hands a batch back to the read thread). The slab
   * being filled is closed: later appends start a new one at full size.
   */
  adopt(batch: Uint8Array): number {
    const cursor = this.endCursor;
    if (batch.length === 0) return cursor;
    if (batch.byteOffset !== 0) throw new RangeError('an adopted batch starts its buffer');
    this.syncTail();
    this.chunks.push(batch);
    this.starts.push(cursor);
    this.endCursor += batch.length;
    // The tail counts as full (what it holds is synced above), so the next append starts a slab, its size
    // still doubling from the tail's (syncTail looks only at the last chunk, now the batch).
    this.tailUsed = this.tail.length;
    return cursor;
  }

  /**
   * Makes the last chunk view all that appends wrote to the tail slab (unless
   * trimming cut into it: then its tail part). Done before the chunks are
   * looked at, not on every append: a flood appends several chunks a read.
   */
  private syncTail(): void {
    const last = this.chunks.length - 1;
    if (last < this.head) return;
    const view = this.chunks[last]!;
    const length = this.tailUsed - view.byteOffset;
    if (view.buffer === this.tail.buffer && view.length !== length) this.chunks[last] = new Uint8Array(this.tail.buffer, view.byteOffset, length);
  }

  /**
   * Bytes of the buffers the log holds: what it retains, plus the trimmed
   * start of its first slab and the unfilled end of its last (each less than
   * a slab).
   */
  get bufferBytes(): number {
    let bytes = 0;
    for (let i = this.head; i < this.chunks.length; i++) bytes += this.chunks[i]!.buffer.byteLength;
    return bytes;
  }

  /** Starts a slab after the full one: the pool's, or a new one twice the last (a new log's grow to the slab size). */
  private newSlab(): void {
    this.syncTail();
    const size = Math.min(this.slabBytes, Math.max(FIRST_SLAB_BYTES, this.tail.length * 2));
    this.tail = size === this.slabBytes && this.pool ? this.pool.take() : new Uint8Array(size);
    this.tailUsed = 0;
    this.chunks.push(this.tail.subarray(0, 0));
    this.starts.push(this.endCursor);
  }

  /**
   * Drops the oldest bytes until at most `maxBytes` remain, then a few more if
   * needed so the log does not start inside a UTF-8 sequence. Returns the
   * number of bytes dropped.
   */
  trimTo(maxBytes: number): number {
    if (this.size <= maxBytes) return 0;
    return this.dropBefore(this.endCursor - Math.max(0, maxBytes));
  }

  /** Drops up to `bytes` of the oldest bytes (rounded up to a character boundary). Returns bytes dropped. */
  trimBy(bytes: number): number {
    if (bytes <= 0) return 0;
    return this.dropBefore(Math.min(this.endCursor, this.startCursor + bytes));
  }

  /** Drops everything. Cursors keep counting from `end`. */
  clear(): number {
    const dropped = this.size;
    for (let i = this.head; i < this.chunks.length; i++) this.release(this.chunks[i]!);
    this.chunks = emptyObjectArray<Uint8Array>();
    this.starts = [];
    this.head = 0;
    this.tail = EMPTY;
    this.tailUsed = 0;
    this.startCursor = this.endCursor;
    return dropped;
  }

  /**
   * Bytes from `cursor` (default: the oldest retained byte), at most
   * `maxBytes` of them. A limited read ends on a character boundary when it
   * can, so consumers decoding each read as text do not see split characters.
   * The bytes are a copy the caller owns: in a new array, or at the start of
   * `into` when given (at most its length; a panel's frames reuse theirs).
   */
  readFrom(cursor: number = this.startCursor, maxBytes = Number.POSITIVE_INFINITY, into?: Uint8Array): LogSlice {
    this.syncTail();
    const skipped = cursor < this.startCursor ? this.startCursor - cursor : 0;
    const from = Math.max(cursor, this.startCursor);
    let to = Math.min(this.endCursor, from + Math.min(maxBytes, into?.length ?? Number.POSITIVE_INFINITY));
    if (to < this.endCursor && to > from) {
      // Back off to the lead byte of a sequence the limit would cut, unless
      // that leaves nothing (a maxBytes smaller than one character).
      let boundary = to;
      for (let i = 0; i < MAX_CONTINUATION_BYTES && boundary > from && isContinuationByte(this.byteAt(boundary)); i++) {
        boundary--;
      }
      if (boundary > from && !isContinuationByte(this.byteAt(boundary))) to = boundary;
    }
    const data = to <= from ? EMPTY : this.copyRange(from, to, into ?? allocateForCopy(to - from));
    return { data, cursor: from, next: to, skipped };
  }

  private dropBefore(target: number): number {
    this.syncTail();
    let cut = target;
    for (let i = 0; i < MAX_CONTINUATION_BYTES && cut < this.endCursor && isContinuationByte(this.byteAt(cut)); i++) {
      cut++;
    }
    const dropped = cut - this.startCursor;
    let chunkStart = this.startCursor;
    while (this.head < this.chunks.length) {
      const chunk = this.chunks[this.head]!;
      const chunkEnd = chunkStart + chunk.length;
      // The tail slab stays while appends fill it, even once all it holds is trimmed.
      if (chunkEnd <= cut && this.head < this.chunks.length - 1) {
        this.release(chunk);
        this.chunks[this.head] = EMPTY;
        this.head++;
        chunkStart = chunkEnd;
        continue;
      }
      if (chunkStart < cut) {
        this.chunks[this.head] = chunk.subarray(cut - chunkStart);
        this.starts[this.head] = cut;
      }
      break;
    }
    this.startCursor = cut;
    if (this.head >= COMPACT_AFTER && this.head * 2 >= this.chunks.length) {
      this.chunks = this.chunks.slice(this.head);
      this.starts = this.starts.slice(this.head);
      this.head = 0;
    }
    return dropped;
  }

  /** A slab no longer retained goes back to the pool (which keeps only full-size ones). */
  private release(chunk: Uint8Array): void {
    this.pool?.give(new Uint8Array(chunk.buffer));
  }

  /** The byte at an absolute cursor inside the log. */
  private byteAt(cursor: number): number {
    if (cursor < this.startCursor || cursor >= this.endCursor) {
      throw new RangeError(`cursor ${cursor} is outside the log [${this.startCursor}, ${this.endCursor})`);
    }
    const index = this.chunkAt(cursor);
    return this.chunks[index]![cursor - this.starts[index]!]!;
  }

  /** Index of the retained chunk holding `cursor` (start <= cursor < end): the last one starting at or before it. */
  private chunkAt(cursor: number): number {
    let low = this.head;
    let high = this.chunks.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >>> 1;
      if (this.starts[mid]! <= cursor) low = mid;
      else high = mid - 1;
    }
    return low;
  }

  /** Copies [from, to) to the start of `out` (at least that long); returns the part written. */
  private copyRange(from: number, to: number, out: Uint8Array): Uint8Array {
    const index = this.chunkAt(from);
    let chunkStart = this.starts[index]!;
    let written = 0;
    for (let i = index; i < this.chunks.length && chunkStart < to; i++) {
      const chunk = this.chunks[i]!;
      const chunkEnd = chunkStart + chunk.length;
      if (chunkEnd > from) {
        const begin = Math.max(from, chunkStart) - chunkStart;
        const end = Math.min(to, chunkEnd) - chunkStart;
        out.set(chunk.subarray(begin, end), written);
        written += end - begin;
      }
      chunkStart = chunkEnd;
    }
    return written === out.length ? out : out.subarray(0, written);
  }
}

/** Below this, a zero-filled array costs less than an uninitialized one (tiny ones live on V8's heap). */
const UNINITIALIZED_FROM = 8 * 1024;

/**
 * A Uint8Array that owns its whole ArrayBuffer (so it can be transferred to
 * the screen worker), for a copy that overwrites every byte.
 * `new Uint8Array(n)` zero-fills first: for a worker slice (up to 64 KiB, on
 * every one a screen parses) or a large read an agent asks for, a second
 * pass as long as the copy. Small reads (the one-byte probes of a viewer
 * whose window is full, an echo) are cheaper zero-filled: an array of up to
 * 64 bytes is allocated on V8's heap, with no backing store of its own. A
 * plain Uint8Array, not the Buffer: a Buffer's slice() is a view, and a
 * consumer taking `.slice()` for a copy must get one.
 */
function allocateForCopy(length: number): Uint8Array {
  if (length < UNINITIALIZED_FROM) return new Uint8Array(length);
  const buffer = Buffer.allocUnsafeSlow(length);
  return new Uint8Array(buffer.buffer, buffer.byteOffset, length);
}
