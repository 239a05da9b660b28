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
    // 300 / 3, rounded down to a step of 8 (see share).
    expect(shares.share).toBe(96);
    // Trimmed at once, oldest first: the newest lines stay.
    expect(history(first)).toBe(96);
    expect(first.serialize()).toContain('line 499');
    expect(first.serialize()).not.toContain('line 399');
    for (const mirror of [second, third]) await mirror.write(lines(0, 500));
    expect([second, third].map(history)).toEqual([96, 96]);

    // A frozen screen holds a snapshot, not lines: the others may grow again, up to their own scrollback.
    third.freeze();
    // 300 / 2, rounded down to a step of 16.
    expect(shares.share).toBe(144);
    await first.write(`\r\n${lines(500, 500)}`);
    expect(history(first)).toBe(144);
    expect(history(third)).toBe(96);
    second.dispose();
    await first.write(`\r\n${lines(1000, 500)}`);
    expect(history(first)).toBe(200);
  });

  it('moves the screens\' limits a step at a time as a flood\'s screens come and freeze, not at each one', () => {
    const shares = new ScrollbackShares(16_000);
    let changes = 0;
    const screen = () => {
      let limit: number | undefined;
      return {
        limitScrollback(lines: number) {
          if (lines !== limit) changes++;
          limit = lines;
        },
        get limit() {
          return limit;
        },
      };
    };
    const screens = Array.from({ length: 100 }, screen);
    const leaves = screens.map((s) => shares.join(s));
    // Each keeps at most its share, which is at most an eighth under the even one.
    expect(screens.every((s) => s.limit === shares.share)).toBe(true);
    expect(shares.share).toBeLessThanOrEqual(160);
    expect(shares.share).toBeGreaterThan(160 * 0.875);
    for (const leave of leaves.slice(0, 84)) leave();
    expect(screens.slice(84).every((s) => s.limit === shares.share)).toBe(true);
    expect(shares.share).toBe(960); // 1000, rounded down to a step of 64
    // Every screen taking every new share as screens come and go: about 10 000 resizes (5000 each way).
    expect(changes).toBeLessThan(3000);
  });
});
