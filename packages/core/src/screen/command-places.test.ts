import { afterEach, describe, expect, it } from 'vitest';
import type { ScreenMark } from '@ptydeck/contract';
import { ScreenMirror } from './screen-mirror.js';

/** A session's bytes as one string, and the cursors where each command's output starts and ends. */
function commands(count: number, linesEach: number): { bytes: string; starts: number[]; ends: number[] } {
  let bytes = '';
  const starts: number[] = [];
  const ends: number[] = [];
  for (let n = 0; n < count; n++) {
    bytes += `$ cmd${n}\r\n`;
    starts.push(bytes.length);
    for (let line = 0; line < linesEach; line++) bytes += `out${n}.${line}\r\n`;
    ends.push(bytes.length);
  }
  return { bytes: `${bytes}$ `, starts, ends };
}

/** What a viewer's terminal shows at each mark once it wrote the serialized screen into a reset one. */
async function textAtMarks(screen: string, marks: readonly ScreenMark[], cols: number, rows: number): Promise<Record<number, string>> {
  const viewer = new ScreenMirror({ cols, rows, scrollback: 10_000 });
  await viewer.write(screen);
  const found: Record<number, string> = {};
  // The viewer's rows are the serialized ones: read them through its own serializer-free text.
  const lines = await rowsOf(viewer);
  for (const mark of marks) found[mark.cursor] = (lines[mark.y] ?? '').slice(mark.x);
  viewer.dispose();
  return found;
}

async function rowsOf(mirror: ScreenMirror): Promise<string[]> {
  // Serialized with all of its scrollback, its rows are the buffer's from the first.
  const copy = new ScreenMirror({ cols: mirror.cols, rows: 1000, scrollback: 0 });
  await copy.write(mirror.serialize());
  const text = copy.screenText().split('\n');
  copy.dispose();
  return text;
}

describe('CommandPlaces (a resync\'s marks, on a real @xterm/headless screen)', () => {
  let mirror: ScreenMirror;
  afterEach(() => mirror.dispose());

  it.each([true, false])('maps each command cursor to the row and column its output starts at in the serialized screen (synchronous %s)', async (synchronous) => {
    mirror = new ScreenMirror({ cols: 30, rows: 5, scrollback: 60, synchronous });
    const { bytes, starts, ends } = commands(12, 3);
    const cursors = [...starts, ...ends].sort((a, b) => a - b);
    // In slices that cut anywhere, as the log hands them out.
    for (let from = 0; from < bytes.length; from += 17) {
      const slice = bytes.slice(from, from + 17);
      await mirror.write(slice, { from, cursors: cursors.filter((cursor) => cursor >= from && cursor <= from + slice.length) });
    }
    const { screen, marks } = await mirror.snapshot(60);
    // 12 × 4 lines + the prompt: all within 60 lines of scrollback and 5 rows.
    expect(marks.map((mark) => mark.cursor)).toEqual(cursors);
    const text = await textAtMarks(screen, marks, 30, 5);
    starts.forEach((start, n) => expect(text[start]).toBe(`out${n}.0`));
    // Where one ends the next command line (or the last prompt) begins.
    ends.forEach((end, n) => expect(text[end]).toBe(n === ends.length - 1 ? '$' : `$ cmd${n + 1}`));
  });

  it('reports only the places within the scrollback asked for, and forgets the ones trimmed off the top', async () => {
    mirror = new ScreenMirror({ cols: 30, rows: 5, scrollback: 20, synchronous: true });
    const { bytes, starts } = commands(10, 3);
    await mirror.write(bytes, { from: 0, cursors: starts });
    const all = await mirror.snapshot(20);
    // 41 lines in a buffer of 25: the first commands' rows are gone.
    expect(all.marks.length).toBeLessThan(starts.length);
    expect(all.marks.map((mark) => mark.cursor)).toEqual(starts.slice(starts.length - all.marks.length));
    const text = await textAtMarks(all.screen, all.marks, 30, 5);
    for (const mark of all.marks) expect(text[mark.cursor]).toBe(`out${starts.indexOf(mark.cursor)}.0`);
    const less = await mirror.snapshot(4);
    expect(less.marks.length).toBeLessThan(all.marks.length);
    const lessText = await textAtMarks(less.screen, less.marks, 30, 5);
    for (const mark of less.marks) expect(lessText[mark.cursor]).toBe(`out${starts.indexOf(mark.cursor)}.0`);
  });

  it('keeps its places through freezing and thawing', async () => {
    mirror = new ScreenMirror({ cols: 30, rows: 5, scrollback: 40, synchronous: true });
    const { bytes, starts } = commands(4, 2);
    await mirror.write(bytes, { from: 0, cursors: starts });
    const before = await mirror.snapshot(40);
    mirror.freeze();
    expect(await mirror.snapshot(40)).toEqual(before);
    // A smaller read thaws it, repainted from the frozen screen: the places come back with it.
    const thawed = await mirror.snapshot(2);
    expect(mirror.isFrozen).toBe(false);
    const text = await textAtMarks(thawed.screen, thawed.marks, 30, 5);
    expect(thawed.marks.length).toBeGreaterThan(0);
    for (const mark of thawed.marks) expect(text[mark.cursor]).toBe(`out${starts.indexOf(mark.cursor)}.0`);
  });

  it('reports none while a full-screen program has the screen, and drops the ones a reset (RIS) left behind', async () => {
    mirror = new ScreenMirror({ cols: 30, rows: 5, scrollback: 40, synchronous: true });
    const { bytes, starts } = commands(3, 1);
    await mirror.write(bytes, { from: 0, cursors: starts });
    expect((await mirror.snapshot(40)).marks).toHaveLength(3);
    await mirror.write('\x1b[?1049h\x1b[Hvim');
    expect((await mirror.snapshot(40)).marks).toEqual([]);
    await mirror.write('\x1b[?1049l');
    expect((await mirror.snapshot(40)).marks).toHaveLength(3);
    await mirror.write('\x1bcafter reset\r\n');
    expect((await mirror.snapshot(40)).marks).toEqual([]);
  });
});
