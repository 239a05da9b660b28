import { describe, expect, it } from 'vitest';
import { commandJumpKey, commandLineRow, cutOffsets, jumpTarget, textBetween, type LineLike } from './command-marks.js';

/** Rows of a buffer: `~` starts a row that continues (wraps) the one above. */
function buffer(rows: string[]): (y: number) => LineLike | undefined {
  return (y) => {
    const row = rows[y];
    if (row === undefined) return undefined;
    const isWrapped = row.startsWith('~');
    const text = isWrapped ? row.slice(1) : row;
    return {
      isWrapped,
      translateToString(trimRight = false, startColumn = 0, endColumn = text.length) {
        const part = text.slice(startColumn, endColumn);
        return trimRight ? part.replace(/\s+$/, '') : part;
      },
    };
  };
}

const key = (over: Partial<{ key: string; ctrlKey: boolean; shiftKey: boolean; altKey: boolean; metaKey: boolean }>) => ({ key: '', code: '', ctrlKey: false, shiftKey: false, altKey: false, metaKey: false, ...over });

describe('command marks', () => {
  it('cut a chunk at each due cursor inside it, the chunk end included, its start too', () => {
    expect(cutOffsets(100, 200, [150])).toEqual([50]);
    expect(cutOffsets(100, 200, [100, 150, 150, 200])).toEqual([0, 50, 100]);
    expect(cutOffsets(100, 200, [99, 201])).toEqual([]);
  });

  it('jump to the nearest command line above or below, none past the ends', () => {
    const lines = [40, 10, 25];
    expect(jumpTarget(lines, 50, 'previous')).toBe(40);
    expect(jumpTarget(lines, 40, 'previous')).toBe(25);
    expect(jumpTarget(lines, 10, 'previous')).toBeNull();
    expect(jumpTarget(lines, 10, 'next')).toBe(25);
    expect(jumpTarget(lines, 40, 'next')).toBeNull();
    // A mark whose line was trimmed away reads -1: never a target.
    expect(jumpTarget([-1, 5], 7, 'previous')).toBe(5);
  });

  it('take Ctrl+Up and Ctrl+Down only, nothing else held', () => {
    expect(commandJumpKey(key({ key: 'ArrowUp', ctrlKey: true }))).toBe('previous');
    expect(commandJumpKey(key({ key: 'ArrowDown', ctrlKey: true }))).toBe('next');
    expect(commandJumpKey(key({ key: 'ArrowUp' }))).toBeNull();
    expect(commandJumpKey(key({ key: 'ArrowUp', ctrlKey: true, shiftKey: true }))).toBeNull();
    expect(commandJumpKey(key({ key: 'ArrowDown', ctrlKey: true, altKey: true }))).toBeNull();
  });

  it('put the mark on the command line above the output, its first row when it wrapped', () => {
    const rows = buffer(['$ echo a-very-long', '~-command', 'output', '$ ']);
    expect(commandLineRow(rows, { y: 2, x: 0 })).toBe(0);
    expect(commandLineRow(buffer(['$ true', '$ ']), { y: 1, x: 0 })).toBe(0);
    // No newline echoed: the output starts on the command's own line.
    expect(commandLineRow(buffer(['$ cmd out']), { y: 0, x: 6 })).toBe(0);
  });

  it('read the output between two positions: wrapped rows joined, no trailing newline', () => {
    const rows = buffer(['$ cmd', 'one   ', 'two-wr', '~apped', 'three', '$ next']);
    expect(textBetween(rows, { y: 1, x: 0 }, { y: 5, x: 0 })).toBe('one\ntwo-wrapped\nthree');
    // Output without a final newline ends mid-row.
    expect(textBetween(buffer(['$ printf ab', 'ab$ ']), { y: 1, x: 0 }, { y: 1, x: 2 })).toBe('ab');
    expect(textBetween(rows, { y: 1, x: 0 }, { y: 1, x: 0 })).toBe('');
    // Blanks at a wrap are content, kept.
    expect(textBetween(buffer(['a b ', '~c', '$ ']), { y: 0, x: 0 }, { y: 2, x: 0 })).toBe('a b c');
  });
});
