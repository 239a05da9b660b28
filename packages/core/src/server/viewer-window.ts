// Flow control for one viewer of one session, sized by how fast that viewer parses, so a keystroke's echo never
// waits behind a flood.
import { ACK_WINDOW } from '@ptydeck/contract';
import { emptyObjectArray } from '../common/elements-kind.js';

/**
 * How long output may wait in a viewer's terminal before it is parsed: the
 * window is sized so that what is in flight takes about this long to parse at
 * the viewer's measured pace. A keystroke's echo, or the prompt after Ctrl-C,
 * waits behind at most about this much.
 */
export const TARGET_DELAY_MS = 80;
/** Largest window, whatever the pace: the bytes a resync can skip are bounded by it. */
export const WINDOW_CEILING = 8 * 1024 * 1024;
/** Ack intervals shorter than this count as this long, so a batch of acks read in one turn cannot claim an absurd pace. */
const MIN_SAMPLE_MS = 1;
/** Weight of a new pace sample in the smoothed pace. */
const PACE_GAIN = 1 / 4;

/** A send not yet fully acknowledged: where it ends and when it left. */
interface Send {
  end: number;
  at: number;
}

export interface ViewerWindowOptions {
  /** Smallest and initial window: the panel protocol's ACK_WINDOW unless a test says otherwise. */
  floor?: number;
  ceiling?: number;
  targetDelayMs?: number;
}

/**
 * The flow-control window of one viewer of one session: how many bytes may
 * be sent beyond what it acknowledged as parsed. A bound on latency, not on
 * bytes: the window is the viewer's measured parse pace (bytes acknowledged
 * per millisecond, smoothed) times TARGET_DELAY_MS, so a fast reader on
 * loopback gets megabytes in flight and a terminal that parses a flood at
 * 100 KB/s keeps the floor, ACK_WINDOW, as it always had.
 *
 * Delay-based, like TCP Vegas or BBR: each ack tells how long its last byte
 * waited since it was sent. While that stays under the target the window
 * grows toward pace × target, by at most the bytes acknowledged (so it at
 * most doubles per round trip, as in slow start); once an ack waited longer
 * than the target the window shrinks at once to what the latest sample's pace
 * can parse in the target. Acks carry nothing new: this only watches their
 * timing. Pure: the caller passes the clock's reading.
 */
export class ViewerWindow {
  private readonly floor: number;
  private readonly ceiling: number;
  private readonly targetDelayMs: number;
  private window: number;
  /** Bytes per millisecond, smoothed; undefined before the first sample. */
  private pace: number | undefined;
  /** One past the last byte acknowledged, and when. */
  private acked: number;
  private ackedAt = Number.NEGATIVE_INFINITY;
  /** Sends not yet fully acknowledged, oldest first: where each ends and when it left. */
  private readonly sends = emptyObjectArray<Send>();
  private head = 0;

  constructor(start: number, options: ViewerWindowOptions = {}) {
    this.floor = options.floor ?? ACK_WINDOW;
    this.ceiling = Math.max(this.floor, options.ceiling ?? WINDOW_CEILING);
    this.targetDelayMs = options.targetDelayMs ?? TARGET_DELAY_MS;
    this.window = this.floor;
    this.acked = start;
  }

  /** Bytes that may be in flight now. */
  get size(): number {
    return this.window;
  }

  /** Output up to `end` (absolute, exclusive) left for the viewer at `now`. */
  sent(end: number, now: number): void {
    const last = this.sends[this.sends.length - 1];
    if (last !== undefined && this.head < this.sends.length && last.at === now) last.end = Math.max(last.end, end);
    else this.sends.push({ end, at: now });
  }

  /** The viewer parsed output up to `cursor` by `now`; older or repeated acks change nothing. */
  ack(cursor: number, now: number): void {
    if (cursor <= this.acked) return;
    const first = this.sends[this.head];
    if (first === undefined) {
      // Nothing recorded as sent (an ack for output before a restart): only move the mark.
      this.acked = cursor;
      this.ackedAt = now;
      return;
    }
    const bytes = cursor - this.acked;
    // The viewer cannot have begun on these bytes before they were sent, nor before it finished the previous ones.
    const began = Math.max(this.ackedAt, first.at);
    let lastSentAt = first.at;
    // The send holding the last byte acknowledged is the first that ends at or past the cursor.
    while (this.head < this.sends.length) {
      const send = this.sends[this.head]!;
      lastSentAt = send.at;
      if (send.end > cursor) break;
      this.head++;
      if (send.end === cursor) break;
    }
    this.compact();
    this.acked = cursor;
    this.ackedAt = now;

    const sample = bytes / Math.max(MIN_SAMPLE_MS, now - began);
    this.pace = this.pace === undefined ? sample : this.pace + (sample - this.pace) * PACE_GAIN;
    if (now - lastSentAt > this.targetDelayMs) {
      // Acks lag: what is in flight takes longer than the target to parse. Shrink at once.
      this.window = this.clamp(Math.min(this.window, sample * this.targetDelayMs));
    } else {
      const wanted = this.pace * this.targetDelayMs;
      if (wanted > this.window) this.window = this.clamp(Math.min(wanted, this.window + bytes));
    }
  }

  /** The viewer was restored at `cursor` (a resync): count in-flight output afresh, keep the learned pace and window. */
  restart(cursor: number): void {
    this.sends.length = 0;
    this.head = 0;
    this.acked = cursor;
    this.ackedAt = Number.NEGATIVE_INFINITY;
  }

  private clamp(bytes: number): number {
    return Math.floor(Math.min(this.ceiling, Math.max(this.floor, bytes)));
  }

  private compact(): void {
    if (this.head === this.sends.length) {
      this.sends.length = 0;
      this.head = 0;
    } else if (this.head > 64 && this.head * 2 > this.sends.length) {
      this.sends.splice(0, this.head);
      this.head = 0;
    }
  }
}
