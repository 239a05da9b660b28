import { describe, expect, it } from 'vitest';
import { diffHunks, lineDiff } from './line-diff.js';

const shape = (oldText: string | null, newText: string) =>
  lineDiff(oldText, newText).map((line) => `${line.kind === 'same' ? ' ' : line.kind === 'add' ? '+' : '-'}${line.text}`);

describe('lineDiff', () => {
  it('shows a new file as all added, with new line numbers', () => {
    expect(shape(null, 'a\nb\n')).toEqual(['+a', '+b']);
    expect(lineDiff(null, 'a\nb')[1]).toEqual({ kind: 'add', text: 'b', oldLine: null, newLine: 2 });
  });

  it('aligns a change between common lines', () => {
    expect(shape('a\nb\nc\nd\n', 'a\nB\nc\nd\ne\n')).toEqual([' a', '-b', '+B', ' c', ' d', '+e']);
  });

  it('numbers lines on each side', () => {
    const lines = lineDiff('keep\nold\ntail', 'keep\nnew1\nnew2\ntail');
    expect(lines.map((line) => [line.oldLine, line.newLine])).toEqual([[1, 1], [2, null], [null, 2], [null, 3], [3, 4]]);
  });

  it('says nothing changed for equal texts, and everything removed for an emptied file', () => {
    expect(shape('x\n', 'x\n')).toEqual([' x']);
    expect(shape('x\ny', '')).toEqual(['-x', '-y']);
  });

  it('falls back to removed-then-added for a huge middle', () => {
    const before = Array.from({ length: 2000 }, (_, i) => `old ${i}`).join('\n');
    const after = Array.from({ length: 2000 }, (_, i) => `new ${i}`).join('\n');
    const lines = lineDiff(before, after);
    expect(lines).toHaveLength(4000);
    expect(lines[0]!.kind).toBe('remove');
    expect(lines[3999]!.kind).toBe('add');
  });
});

describe('diffHunks', () => {
  it('keeps context around changes and folds the rest', () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n');
    const after = before.replace('line 10', 'LINE 10');
    const hunks = diffHunks(lineDiff(before, after), 2);
    expect(hunks.map((hunk) => (hunk.kind === 'skipped' ? `…${hunk.count}` : hunk.lines.length))).toEqual(['…8', 6, '…7']);
  });
});
