import { isContinuationByte, MAX_CONTINUATION_BYTES } from '../vt/index.js';

/**
 * A session's output, addressed by absolute byte cursors (bytes since the
 * session started). Appends keep the chunk they are given (no copy);
 * trimming drops whole chunks from the front and, for the one chunk cut in
 * the middle, keeps a view of its tail, so both are O(1) amortized. Reads
 * copy: no view of a chunk leaves the log, so a chunk appended as reusable
 * can go back to whoever lent it (the read thread, for its next batch) once
 * it is trimmed.
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

/** Compact the chunk array once this many dropped slots sit at its front. */
const COMPACT_AFTER = 1024;

const EMPTY = new Uint8Array(0);

export class OutputLog {
  private chunks: Uint8Array[] = [];
  /**
   * Absolute cursor of each chunk's first byte, beside `chunks`, so a read
   * finds its chunk by binary search: walking the list from the nearer end
   * cost a step per chunk between, hundreds for a viewer a window behind.
   */
  private starts: number[] = [];
  /** Beside `chunks`: whether the chunk's buffer goes back through `reuse` once it is dropped. */
  private reusable: boolean[] = [];
  /** Index of the oldest retained chunk in `chunks`. */
  private head = 0;
  private startCursor = 0;
  private endCursor = 0;

  /**
   * `reuse` takes back the buffer of a chunk appended with appendReusable() once the log no longer holds it.
   * `startAt`: the absolute cursor of the first byte appended, for a log that carries on one an earlier
   * host kept (a restored session), so cursors handed out before the restart still address the same bytes.
   */
  constructor(
    private readonly reuse?: (buffer: ArrayBuffer) => void,
    startAt = 0,
  ) {
    if (!Number.isSafeInteger(startAt) || startAt < 0) throw new RangeError(`a log starts at a non-negative integer cursor, not ${startAt}`);
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

  /** Appends a chunk without copying it; the caller must not mutate it afterwards. Returns its cursor. */
  append(chunk: Uint8Array): number {
    return this.push(chunk, false);
  }

  /**
   * Appends a chunk that owns its whole buffer, which the log hands to the
   * constructor's `reuse` once the chunk is trimmed or cleared: a flood's
   * batches then go back to the read thread instead of being garbage (V8
   * counts each new buffer against its heap limit, and a flood of them on a
   * small heap ran a full GC every quarter second). Nothing else may keep the
   * chunk after the call that handed it over. Returns its cursor.
   */
  appendReusable(chunk: Uint8Array): number {
    return this.push(chunk, this.reuse !== undefined);
  }

  private push(chunk: Uint8Array, reusable: boolean): number {
    const cursor = this.endCursor;
    if (chunk.length === 0) {
      if (reusable) this.reuse!(chunk.buffer as ArrayBuffer);
      return cursor;
    }
    this.chunks.push(chunk);
    this.starts.push(cursor);
    this.reusable.push(reusable);
    this.endCursor += chunk.length;
    return cursor;
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
    for (let i = this.head; i < this.chunks.length; i++) this.release(i);
    this.chunks = [];
    this.starts = [];
    this.reusable = [];
    this.head = 0;
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
    let cut = target;
    for (let i = 0; i < MAX_CONTINUATION_BYTES && cut < this.endCursor && isContinuationByte(this.byteAt(cut)); i++) {
      cut++;
    }
    const dropped = cut - this.startCursor;
    let chunkStart = this.startCursor;
    while (this.head < this.chunks.length) {
      const chunk = this.chunks[this.head]!;
      const chunkEnd = chunkStart + chunk.length;
      if (chunkEnd <= cut) {
        this.release(this.head);
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
      this.reusable = this.reusable.slice(this.head);
      this.head = 0;
    }
    return dropped;
  }

  /** The chunk at `index` is being dropped: a reusable one's buffer goes back. */
  private release(index: number): void {
    if (!this.reusable[index]) return;
    this.reusable[index] = false;
    this.reuse!(this.chunks[index]!.buffer as ArrayBuffer);
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
