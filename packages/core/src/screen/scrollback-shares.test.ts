import { afterEach, describe, expect, it } from 'vitest';
import { ScreenMirror } from './screen-mirror.js';
import { ScrollbackShares } from './scrollback-shares.js';

const ROWS = 4;
/** Lines of history a mirror holds: what its full serialization draws, less the screen. */
function history(mirror: ScreenMirror): number {
  return mirror.serialize().split('\r\n').length - ROWS;
}

function lines(from: number, count: number): string {
  return Array.from({ length: count }, (_, i) => `line ${from + i}`).join('\r\n');
}

describe('ScrollbackShares', () => {
  const mirrors: ScreenMirror[] = [];
  afterEach(() => {
    for (const mirror of mirrors.splice(0)) mirror.dispose();
  });
  const make = (shares: ScrollbackShares): ScreenMirror => {
    const mirror = new ScreenMirror({ cols: 20, rows: ROWS, scrollback: 200, synchronous: true, shares });
    mirrors.push(mirror);
    return mirror;
  };

  it('lets each live screen keep its own scrollback, or its share of the total once more are live', async () => {
    const shares = new ScrollbackShares(300);
    const first = make(shares);
    await first.write(lines(0, 500));
    expect(history(first)).toBe(200);

    const [second, third] = [make(shares), make(shares)];
    expect(shares.share).toBe(100);
    // Trimmed at once, oldest first: the newest lines stay.
    expect(history(first)).toBe(100);
    expect(first.serialize()).toContain('line 499');
    expect(first.serialize()).not.toContain('line 395');
    for (const mirror of [second, third]) await mirror.write(lines(0, 500));
    expect([second, third].map(history)).toEqual([100, 100]);

    // A frozen screen holds a snapshot, not lines: the others may grow again, up to their own scrollback.
    third.freeze();
    expect(shares.share).toBe(150);
    await first.write(`\r\n${lines(500, 500)}`);
    expect(history(first)).toBe(150);
    expect(history(third)).toBe(100);
    second.dispose();
    await first.write(`\r\n${lines(1000, 500)}`);
    expect(history(first)).toBe(200);
  });
});
