// Where commands' outputs start and end on a headless screen, kept as xterm.js markers so they move with the
// scrollback, and read off as rows of the serialized screen: a resync's gutter marks (issue 36).
import type HeadlessModule from '@xterm/headless';
import type { ScreenMark } from '@ptydeck/contract';

type Terminal = InstanceType<typeof HeadlessModule.Terminal>;
type Marker = NonNullable<ReturnType<Terminal['registerMarker']>>;

interface Place {
  marker: Marker;
  x: number;
  /** The normal buffer it was placed on: a reset (RIS) makes a new one and leaves old markers where they were. */
  buffer: unknown;
}

/** xterm.js's buffer set, on its core (not in the public typings). */
interface BuffersCore {
  _core?: { buffers?: { normal?: unknown } };
}

/**
 * The places of one screen, by log cursor. Bounded by the buffer: a place
 * goes with its row when the scrollback trims it, and a reset's stale ones
 * are dropped past `limit` places (the oldest first) or when read.
 */
export class CommandPlaces {
  private readonly places = new Map<number, Place>();

  constructor(
    private readonly terminal: Terminal,
    /** Most places kept: two per row of the buffer is more than commands can fill. */
    private readonly limit: number,
  ) {}

  /**
   * Notes where the screen stands now as `cursor`'s place: call it when the
   * terminal has parsed exactly the bytes before `cursor`. Nothing on a
   * full-screen program's screen, which has no scrollback to mark.
   */
  place(cursor: number): void {
    if (this.places.has(cursor) || this.terminal.buffer.active.type !== 'normal') return;
    const marker = this.terminal.registerMarker(0);
    if (!marker) return;
    const place: Place = { marker, x: this.terminal.buffer.active.cursorX, buffer: this.normalBuffer() };
    this.places.set(cursor, place);
    marker.onDispose(() => {
      if (this.places.get(cursor) === place) this.places.delete(cursor);
    });
    if (this.places.size > this.limit) this.drop(this.places.keys().next().value!);
  }

  /**
   * The places in the serialized screen SerializeAddon makes with
   * `scrollback` lines of history: rows counted from its first. None while a
   * full-screen program has the screen (the viewer restores into it, where
   * markers would land on the wrong buffer).
   */
  rows(scrollback: number): ScreenMark[] {
    const buffer = this.terminal.buffer.active;
    if (buffer.type !== 'normal') return [];
    // SerializeAddon's first row for this much scrollback.
    const first = buffer.length - Math.min(buffer.length, scrollback + this.terminal.rows);
    const current = this.normalBuffer();
    const marks: ScreenMark[] = [];
    for (const [cursor, place] of this.places) {
      if (place.buffer !== current || place.marker.isDisposed) {
        this.drop(cursor);
        continue;
      }
      const line = place.marker.line;
      if (line >= first && line < buffer.length) marks.push({ cursor, y: line - first, x: place.x });
    }
    return marks.sort((a, b) => a.cursor - b.cursor);
  }

  /** Places again the marks read off a serialized screen just written into this reset terminal (a frozen screen thawing). */
  restore(marks: readonly ScreenMark[]): void {
    const buffer = this.terminal.buffer.active;
    if (buffer.type !== 'normal') return;
    const here = buffer.baseY + buffer.cursorY;
    for (const mark of marks) {
      if (this.places.has(mark.cursor) || mark.y >= buffer.length) continue;
      const marker = this.terminal.registerMarker(mark.y - here);
      if (!marker) continue;
      const place: Place = { marker, x: mark.x, buffer: this.normalBuffer() };
      this.places.set(mark.cursor, place);
      marker.onDispose(() => {
        if (this.places.get(mark.cursor) === place) this.places.delete(mark.cursor);
      });
    }
  }

  clear(): void {
    for (const cursor of [...this.places.keys()]) this.drop(cursor);
  }

  private drop(cursor: number): void {
    const place = this.places.get(cursor);
    this.places.delete(cursor);
    place?.marker.dispose();
  }

  private normalBuffer(): unknown {
    return (this.terminal as unknown as BuffersCore)._core?.buffers?.normal;
  }
}
