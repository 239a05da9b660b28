/**
 * Turns raw terminal output into the plain text a model should read: escape
 * sequences removed, carriage-return overwrites resolved the way a terminal
 * would show them (a progress bar ends as its final state, not 100 frames),
 * and bounded output that keeps both ends.
 */
import { MAX_COLS } from '@ptydeck/contract';
import { SequenceScanner } from '../vt/index.js';

/**
 * Renders terminal output to plain text. Lines are modelled as cells so `\r`,
 * backspace, erase-in-line and horizontal cursor moves give what a person
 * would have seen; vertical moves are ignored (their text is kept in order).
 * Escape sequences are found by the sequence scanner (vt/), in the bytes as
 * the log has them; a sequence cut off at the end is dropped.
 */
export function renderPlainText(input: string | Uint8Array): string {
  const data = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
  const lines = new PlainLines();
  const scanner = (plainScanner ??= scannerForPlainText());
  // Nothing of the render before carries over: each starts in the ground state at cursor 0.
  scanner.restart(0);
  plainTarget = lines;
  try {
    scanner.scan(0, data);
  } finally {
    plainTarget = undefined;
  }
  return lines.finish();
}

/**
 * One scanner for every render, its handlers writing to the render under way
 * (renders never nest): a scanner is a 4 KiB OSC buffer and a few tables, and a
 * terminal_run renders three or four ranges (bench figure 4).
 */
let plainScanner: SequenceScanner | undefined;
let plainTarget: PlainLines | undefined;

function scannerForPlainText(): SequenceScanner {
  const scanner = new SequenceScanner();
  scanner.on({
    text: (bytes, from, to) => plainTarget!.writeBytes(bytes, from, to),
    csiFinals: 'KCDG',
    csi: (params, final) => plainTarget!.csi(params, final),
  });
  return scanner;
}

/** The lines rendered so far, as cells, and the cursor's column in the last. */
class PlainLines {
  private readonly lines: string[] = [];
  private line: string[] = [];
  private col = 0;

  /**
   * ASCII a byte at a time, without decoding; from the first other byte on, the rest of the run is
   * decoded once (a run between sequences holds whole characters: no ESC is part of one).
   */
  writeBytes(bytes: Uint8Array, from: number, to: number): void {
    for (let i = from; i < to; i++) {
      const byte = bytes[i]!;
      if (byte >= 0x80) {
        const text = Buffer.from(bytes.buffer, bytes.byteOffset + i, to - i).toString('utf8');
        for (let k = 0; k < text.length; k++) this.write(text.charCodeAt(k));
        return;
      }
      this.write(byte);
    }
  }

  /** One UTF-16 code unit: a control moves the cursor or is dropped, anything else takes a cell. */
  private write(code: number): void {
    if (code === 0x0a) this.newline();
    else if (code === 0x0d) this.col = 0;
    else if (code === 0x08) this.col = Math.max(0, this.col - 1);
    else if (code === 0x09) this.tab();
    else if (code < 0x20 || code === 0x7f || (code >= 0x80 && code < 0xa0)) {
      // Other control characters (BEL, SI/SO, ...) have no glyph.
    } else {
      this.put(String.fromCharCode(code));
    }
  }

  /**
   * A real terminal stops the cursor at its right margin; here, at the widest
   * terminal a session may have. Unbounded, the 14 bytes `ESC [ 30000000 C x`
   * became a 30-million-cell line in the host (2e9 exhausted its heap).
   * A line that text itself made longer keeps its column: a move only never
   * goes further right than MAX_COLS.
   */
  csi(params: string, final: string): void {
    const count = Math.min(MAX_COLS, Math.max(1, Number.parseInt(params, 10) || 0));
    if (final === 'K') {
      const mode = Number.parseInt(params, 10) || 0;
      if (mode === 0) this.line.length = Math.min(this.line.length, this.col);
      else if (mode === 1) for (let k = 0; k <= this.col && k < this.line.length; k++) this.line[k] = ' ';
      else this.line = [];
    } else if (final === 'C') this.col = Math.max(this.col, Math.min(this.col + count, MAX_COLS - 1));
    else if (final === 'D') this.col = Math.max(0, this.col - count);
    else if (final === 'G') this.col = count - 1;
  }

  finish(): string {
    this.lines.push(this.line.join(''));
    return this.lines.join('\n');
  }

  private put(ch: string): void {
    while (this.line.length < this.col) this.line.push(' ');
    this.line[this.col] = ch;
    this.col++;
  }

  private newline(): void {
    this.lines.push(this.line.join(''));
    this.line = [];
    this.col = 0;
  }

  private tab(): void {
    const next = (Math.floor(this.col / 8) + 1) * 8;
    // A tab over empty cells reads best as the tab itself.
    if (this.col >= this.line.length) {
      this.put('\t');
      this.col = next;
      while (this.line.length < this.col) this.line.push('');
    } else this.col = next;
  }
}

export interface BoundedText {
  text: string;
  truncated: boolean;
  /** UTF-8 bytes left out of the middle. */
  omittedBytes: number;
}

/** Room kept for the omission line. */
const MARKER_RESERVE = 48;

/** The line that stands for what was left out, so a model knows output is missing and how much. */
export function omissionLine(bytes: number): string {
  return `... ${bytes} bytes omitted ...\n`;
}

/** Joins a head and a tail around the omission line. */
export function joinAroundOmission(head: string, omittedBytes: number, tail: string): string {
  const sep = head.endsWith('\n') || head === '' ? '' : '\n';
  return `${head}${sep}${omissionLine(omittedBytes)}${tail}`;
}

/**
 * Bounds text to about `maxBytes` UTF-8 bytes, keeping the head and the tail
 * around an explicit `... N bytes omitted ...` line, so a model sees both how a
 * command started and how it ended. Cuts prefer line boundaries.
 */
export function boundText(text: string, maxBytes: number): BoundedText {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return { text, truncated: false, omittedBytes: 0 };
  const budget = Math.max(0, maxBytes - MARKER_RESERVE);
  const headEnd = headCut(bytes, Math.floor(budget / 2));
  const tailStart = Math.max(headEnd, tailCut(bytes, budget - Math.floor(budget / 2)));
  const omitted = tailStart - headEnd;
  return {
    text: joinAroundOmission(bytes.subarray(0, headEnd).toString('utf8'), omitted, bytes.subarray(tailStart).toString('utf8')),
    truncated: true,
    omittedBytes: omitted,
  };
}

/** The first `maxBytes` or fewer UTF-8 bytes of text, cut at a line break when one is near. */
export function headWithin(text: string, maxBytes: number): { text: string; omittedBytes: number } {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return { text, omittedBytes: 0 };
  const end = headCut(bytes, maxBytes);
  return { text: bytes.subarray(0, end).toString('utf8'), omittedBytes: bytes.length - end };
}

/** The last `maxBytes` or fewer UTF-8 bytes of text, cut after a line break when one is near. */
export function tailWithin(text: string, maxBytes: number): { text: string; omittedBytes: number } {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return { text, omittedBytes: 0 };
  const start = tailCut(bytes, maxBytes);
  return { text: bytes.subarray(start).toString('utf8'), omittedBytes: start };
}

/** Where a head of at most `size` bytes ends: at a line break within a quarter of it, never inside a character. */
function headCut(bytes: Buffer, size: number): number {
  let end = size;
  const lastBreak = bytes.lastIndexOf(0x0a, end - 1);
  if (lastBreak >= 0 && end - lastBreak <= Math.floor(size / 4)) end = lastBreak + 1;
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return end;
}

/** Where a tail of at most `size` bytes starts: after a line break within a quarter of it, never inside a character. */
function tailCut(bytes: Buffer, size: number): number {
  let start = bytes.length - size;
  const nextBreak = bytes.indexOf(0x0a, start);
  if (nextBreak >= 0 && nextBreak - start <= Math.floor(size / 4)) start = nextBreak + 1;
  while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++;
  return start;
}

/**
 * Removes the terminal's echo of input the agent typed from the start of
 * `text`: each input line the terminal echoed back is dropped while they match
 * in order. Input the terminal did not echo (passwords) leaves text unchanged.
 */
export function stripEcho(text: string, input: string): string {
  const expected = input
    .replace(/\x1b\[[0-9;]*[A-Za-z~]|\x1b./g, '')
    .replace(/\r\n?/g, '\n')
    // eslint-disable-next-line no-control-regex
    .replace(/[\x00-\x08\x0b-\x1f\x7f]/g, '');
  if (expected === '') return text;
  const expectedLines = expected.split('\n');
  // A trailing newline in the input means its last line was completed.
  const complete = expected.endsWith('\n');
  if (complete) expectedLines.pop();
  let rest = text;
  for (let k = 0; k < expectedLines.length; k++) {
    const want = expectedLines[k]!;
    const isLast = k === expectedLines.length - 1;
    if (isLast && !complete) {
      if (rest.startsWith(want)) rest = rest.slice(want.length);
      break;
    }
    if (rest.startsWith(`${want}\n`)) rest = rest.slice(want.length + 1);
    else if (rest === want) rest = '';
    else break;
  }
  return rest;
}
