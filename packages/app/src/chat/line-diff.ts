/** One line of a diff between two texts, with its line numbers in each (1-based). */
export interface DiffLine {
  kind: 'same' | 'add' | 'remove';
  text: string;
  oldLine: number | null;
  newLine: number | null;
}

export type DiffHunk = { kind: 'lines'; lines: DiffLine[] } | { kind: 'skipped'; count: number };

/**
 * Above this many cells (changed old lines × changed new lines) the middle is
 * shown as removed-then-added instead of aligned: the table would cost more
 * memory and time than a card is worth.
 */
const MAX_TABLE_CELLS = 2_000_000;

/**
 * A line diff of `oldText` to `newText` (null: a new file), for a tool card.
 * Common lines at both ends are matched first, then the middle is aligned by
 * longest common subsequence.
 */
export function lineDiff(oldText: string | null, newText: string): DiffLine[] {
  const before = oldText === null || oldText === '' ? [] : splitLines(oldText);
  const after = newText === '' ? [] : splitLines(newText);
  let head = 0;
  while (head < before.length && head < after.length && before[head] === after[head]) head++;
  let tail = 0;
  while (tail < before.length - head && tail < after.length - head && before[before.length - 1 - tail] === after[after.length - 1 - tail]) tail++;

  const lines: DiffLine[] = [];
  for (let i = 0; i < head; i++) lines.push({ kind: 'same', text: before[i]!, oldLine: i + 1, newLine: i + 1 });
  const oldMiddle = before.slice(head, before.length - tail);
  const newMiddle = after.slice(head, after.length - tail);
  for (const [kind, oldIndex, newIndex] of alignMiddle(oldMiddle, newMiddle)) {
    if (kind === 'same') lines.push({ kind, text: oldMiddle[oldIndex]!, oldLine: head + oldIndex + 1, newLine: head + newIndex + 1 });
    else if (kind === 'remove') lines.push({ kind, text: oldMiddle[oldIndex]!, oldLine: head + oldIndex + 1, newLine: null });
    else lines.push({ kind, text: newMiddle[newIndex]!, oldLine: null, newLine: head + newIndex + 1 });
  }
  for (let i = tail; i > 0; i--) {
    lines.push({ kind: 'same', text: before[before.length - i]!, oldLine: before.length - i + 1, newLine: after.length - i + 1 });
  }
  return lines;
}

/** Changed lines with `context` unchanged lines around each change; longer unchanged runs are folded. */
export function diffHunks(lines: DiffLine[], context = 3): DiffHunk[] {
  const keep = lines.map(() => false);
  lines.forEach((line, index) => {
    if (line.kind === 'same') return;
    for (let i = Math.max(0, index - context); i <= Math.min(lines.length - 1, index + context); i++) keep[i] = true;
  });
  const hunks: DiffHunk[] = [];
  let skipped = 0;
  let current: DiffLine[] | null = null;
  lines.forEach((line, index) => {
    if (!keep[index]) {
      skipped++;
      current = null;
      return;
    }
    if (skipped > 0) hunks.push({ kind: 'skipped', count: skipped });
    skipped = 0;
    if (!current) {
      current = [];
      hunks.push({ kind: 'lines', lines: current });
    }
    current.push(line);
  });
  if (skipped > 0) hunks.push({ kind: 'skipped', count: skipped });
  return hunks;
}

function splitLines(text: string): string[] {
  const lines = text.split('\n');
  // A final newline ends the last line; it does not start another.
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

type Step = ['same' | 'remove' | 'add', number, number];

function alignMiddle(before: string[], after: string[]): Step[] {
  const steps: Step[] = [];
  if (before.length * after.length > MAX_TABLE_CELLS) {
    before.forEach((_, index) => steps.push(['remove', index, -1]));
    after.forEach((_, index) => steps.push(['add', -1, index]));
    return steps;
  }
  // lengths[i][j]: longest common subsequence of before[i..] and after[j..].
  const width = after.length + 1;
  const lengths = new Uint32Array((before.length + 1) * width);
  for (let i = before.length - 1; i >= 0; i--) {
    for (let j = after.length - 1; j >= 0; j--) {
      lengths[i * width + j] =
        before[i] === after[j] ? lengths[(i + 1) * width + j + 1]! + 1 : Math.max(lengths[(i + 1) * width + j]!, lengths[i * width + j + 1]!);
    }
  }
  let i = 0;
  let j = 0;
  while (i < before.length && j < after.length) {
    if (before[i] === after[j]) steps.push(['same', i++, j++]);
    else if (lengths[(i + 1) * width + j]! >= lengths[i * width + j + 1]!) steps.push(['remove', i++, -1]);
    else steps.push(['add', -1, j++]);
  }
  while (i < before.length) steps.push(['remove', i++, -1]);
  while (j < after.length) steps.push(['add', -1, j++]);
  return steps;
}
