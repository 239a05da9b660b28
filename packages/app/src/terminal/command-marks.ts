// The command gutter's pure parts: where to cut output so a command's start is parsed on its own, which command
// Ctrl+Up/Down go to, and a command's lines and output text in the buffer.
import type { KeyLike } from './shortcuts.js';

/**
 * Offsets (from the chunk's start) at which a chunk of output spanning
 * cursors [from, to) is cut so that each cursor in `due` (ascending) ends a
 * piece: the terminal has then parsed exactly the output before it.
 */
export function cutOffsets(from: number, to: number, due: readonly number[]): number[] {
  const offsets: number[] = [];
  for (const cursor of due) {
    if (cursor < from || cursor > to) continue;
    const offset = cursor - from;
    if (offsets[offsets.length - 1] !== offset) offsets.push(offset);
  }
  return offsets;
}

export type JumpDirection = 'previous' | 'next';

/** Ctrl+Up / Ctrl+Down (and nothing else held): VS Code's keys to the previous and next command. */
export function commandJumpKey(event: KeyLike): JumpDirection | null {
  if (!event.ctrlKey || event.shiftKey || event.altKey || event.metaKey) return null;
  if (event.key === 'ArrowUp') return 'previous';
  if (event.key === 'ArrowDown') return 'next';
  return null;
}

/**
 * The line a jump lands on: the nearest command line above `from` (previous)
 * or below it (next), among `lines` in any order; null when there is none.
 */
export function jumpTarget(lines: readonly number[], from: number, direction: JumpDirection): number | null {
  let best: number | null = null;
  for (const line of lines) {
    if (line < 0) continue;
    if (direction === 'previous' ? line < from && (best === null || line > best) : line > from && (best === null || line < best)) best = line;
  }
  return best;
}

/** The part of xterm.js's IBufferLine these read. */
export interface LineLike {
  readonly isWrapped: boolean;
  translateToString(trimRight?: boolean, startColumn?: number, endColumn?: number): string;
}

export type LineAt = (y: number) => LineLike | undefined;

/** The first row of the (possibly wrapped) line that row `y` belongs to. */
export function logicalLineStart(lineAt: LineAt, y: number): number {
  let top = y;
  while (top > 0 && lineAt(top)?.isWrapped) top--;
  return top;
}

/**
 * The row a command's mark goes on, from where its output starts: the shell
 * echoed the command line and its newline before the output, so the command
 * line is the one above (its first row, when it wrapped). Output that starts
 * mid-line (no newline echoed) shares the command's line.
 */
export function commandLineRow(lineAt: LineAt, output: { y: number; x: number }): number {
  if (output.x > 0 || output.y === 0) return logicalLineStart(lineAt, output.y);
  return logicalLineStart(lineAt, output.y - 1);
}

/**
 * The text from `start` to `end` (rows and columns), as a terminal's "copy
 * output" gives it: wrapped rows joined, trailing blanks of each line trimmed,
 * no newline after the last line.
 */
export function textBetween(lineAt: LineAt, start: { y: number; x: number }, end: { y: number; x: number }): string {
  if (end.y < start.y || (end.y === start.y && end.x <= start.x)) return '';
  // Output that ended with a newline ends at column 0 of the next row: that row holds none of it.
  const last = end.x === 0 ? end.y - 1 : end.y;
  let text = '';
  for (let y = start.y; y <= last; y++) {
    const line = lineAt(y);
    if (!line) break;
    const next = y < last ? lineAt(y + 1) : undefined;
    const wrapsOn = next?.isWrapped === true;
    const piece = line.translateToString(!wrapsOn, y === start.y ? start.x : 0, y === end.y ? end.x : undefined);
    text += y === start.y || line.isWrapped ? piece : `\n${piece}`;
  }
  return text;
}
