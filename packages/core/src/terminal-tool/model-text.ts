/**
 * Turns raw terminal output into the plain text a model should read: escape
 * sequences removed, carriage-return overwrites resolved the way a terminal
 * would show them (a progress bar ends as its final state, not 100 frames),
 * and bounded output that keeps both ends.
 */

const ESC = '\x1b';

/**
 * Renders terminal output to plain text. Lines are modelled as cells so `\r`,
 * backspace, erase-in-line and horizontal cursor moves give what a person
 * would have seen; vertical moves are ignored (their text is kept in order).
 */
export function renderPlainText(input: string): string {
  const lines: string[] = [];
  let line: string[] = [];
  let col = 0;

  const put = (ch: string) => {
    while (line.length < col) line.push(' ');
    line[col] = ch;
    col++;
  };
  const newline = () => {
    lines.push(line.join(''));
    line = [];
    col = 0;
  };

  let i = 0;
  const n = input.length;
  while (i < n) {
    const ch = input[i]!;
    const code = ch.charCodeAt(0);
    if (ch === ESC || code === 0x9b || code === 0x9d || code === 0x90) {
      const kind = ch === ESC ? input[i + 1] : code === 0x9b ? '[' : code === 0x9d ? ']' : 'P';
      const bodyStart = ch === ESC ? i + 2 : i + 1;
      if (kind === undefined) break; // a lone ESC at the end: drop it
      if (kind === '[') {
        let j = bodyStart;
        while (j < n && !(input.charCodeAt(j) >= 0x40 && input.charCodeAt(j) <= 0x7e)) j++;
        if (j >= n) break; // incomplete: drop
        const params = input.slice(bodyStart, j);
        const final = input[j]!;
        const count = Math.max(1, Number.parseInt(params, 10) || 0);
        if (final === 'K') {
          const mode = Number.parseInt(params, 10) || 0;
          if (mode === 0) line.length = Math.min(line.length, col);
          else if (mode === 1) for (let k = 0; k <= col && k < line.length; k++) line[k] = ' ';
          else line = [];
        } else if (final === 'C') col += count;
        else if (final === 'D') col = Math.max(0, col - count);
        else if (final === 'G') col = count - 1;
        i = j + 1;
        continue;
      }
      if (kind === ']' || kind === 'P' || kind === 'X' || kind === '^' || kind === '_') {
        // OSC / DCS / SOS / PM / APC: skip to BEL or ST.
        let j = bodyStart;
        while (j < n && input[j] !== '\x07' && !(input[j] === ESC && input[j + 1] === '\\') && input[j] !== '\x9c') j++;
        if (j >= n) break;
        i = input[j] === ESC ? j + 2 : j + 1;
        continue;
      }
      // ESC followed by intermediates (e.g. "ESC ( B") then a final byte.
      let j = i + 1;
      while (j < n && input.charCodeAt(j) >= 0x20 && input.charCodeAt(j) <= 0x2f) j++;
      i = j + 1;
      continue;
    }
    if (ch === '\n') newline();
    else if (ch === '\r') col = 0;
    else if (ch === '\b') col = Math.max(0, col - 1);
    else if (ch === '\t') {
      const next = (Math.floor(col / 8) + 1) * 8;
      // A tab over empty cells reads best as the tab itself.
      if (col >= line.length) {
        put('\t');
        col = next;
        while (line.length < col) line.push('');
      } else col = next;
    } else if (code < 0x20 || code === 0x7f || (code >= 0x80 && code < 0xa0)) {
      // Other control characters (BEL, SI/SO, ...) have no glyph.
    } else {
      put(ch);
    }
    i++;
  }
  lines.push(line.join(''));
  return lines.join('\n');
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
