/**
 * When a session's output arrived, coarsely: a cursor and a wall-clock time
 * each time the clock moved on by `granularityMs` since the last entry, so a
 * flood of chunks costs one comparison each and a recording replays with the
 * pauses a person saw. Bounded: past `maxEntries` every other older entry
 * goes (the timing gets coarser, never wrong in order), and entries before
 * the log's start go with the output.
 */
import { emptyDoubleArray } from '../common/elements-kind.js';

export interface ChunkTime {
  cursor: number;
  time: number;
}

export class ChunkTimes {
  private cursors: number[] = [];
  /** Epoch milliseconds: doubles from the start (see emptyDoubleArray). */
  private times = emptyDoubleArray();
  private last = Number.NEGATIVE_INFINITY;
  private revisionCount = 0;

  constructor(
    private readonly granularityMs = 10,
    private readonly maxEntries = 4096,
  ) {}

  /** Changes with every entry: the store writes the times again only when it moved. */
  get revision(): number {
    return this.revisionCount;
  }

  /** Output starting at `cursor` arrived at `now` (epoch ms). */
  arrived(cursor: number, now: number): void {
    if (now - this.last < this.granularityMs) return;
    this.last = now;
    this.cursors.push(cursor);
    this.times.push(now);
    this.revisionCount++;
    if (this.cursors.length > this.maxEntries) this.thin();
  }

  /** The entries, oldest first, from the last at or before `from` (the time its byte arrived by). */
  entries(from = 0): ChunkTime[] {
    let first = 0;
    while (first + 1 < this.cursors.length && this.cursors[first + 1]! <= from) first++;
    const out: ChunkTime[] = [];
    for (let i = first; i < this.cursors.length; i++) out.push({ cursor: this.cursors[i]!, time: this.times[i]! });
    return out;
  }

  /** When the byte at `cursor` had arrived by (the entry at or before it), or null before the first. */
  timeAt(cursor: number): number | null {
    let lo = 0;
    let hi = this.cursors.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.cursors[mid]! <= cursor) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found < 0 ? null : this.times[found]!;
  }

  /** Forgets entries wholly before `logStart`, keeping the one that covers it. */
  trim(logStart: number): void {
    let drop = 0;
    while (drop + 1 < this.cursors.length && this.cursors[drop + 1]! <= logStart) drop++;
    if (drop === 0) return;
    this.cursors.splice(0, drop);
    this.times.splice(0, drop);
    this.revisionCount++;
  }

  /** Delta-encoded for the store: [cursor, time, Δcursor, Δtime, …]. */
  encode(from = 0): number[] {
    const out: number[] = [];
    let cursor = 0;
    let time = 0;
    for (const entry of this.entries(from)) {
      out.push(entry.cursor - cursor, entry.time - time);
      cursor = entry.cursor;
      time = entry.time;
    }
    return out;
  }

  /** Takes back what encode() wrote (an earlier host's): entries out of order are skipped. */
  static decode(encoded: readonly number[], granularityMs?: number, maxEntries?: number): ChunkTimes {
    const times = new ChunkTimes(granularityMs, maxEntries);
    let cursor = 0;
    let time = 0;
    for (let i = 0; i + 1 < encoded.length; i += 2) {
      cursor += encoded[i]!;
      time += encoded[i + 1]!;
      const last = times.cursors.length - 1;
      if (last >= 0 && (cursor < times.cursors[last]! || time < times.times[last]!)) continue;
      times.cursors.push(cursor);
      times.times.push(time);
    }
    times.last = times.times[times.times.length - 1] ?? Number.NEGATIVE_INFINITY;
    return times;
  }

  private thin(): void {
    // The older half loses every other entry.
    const half = this.cursors.length >> 1;
    const keep = (_: number, i: number) => i >= half || i % 2 === 0;
    this.cursors = this.cursors.filter(keep);
    this.times = this.times.filter(keep);
  }
}
