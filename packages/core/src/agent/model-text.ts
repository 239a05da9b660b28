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

/**
 * Bounds text to about `maxBytes` UTF-8 bytes, keeping the head and the tail
 * around an explicit `... N bytes omitted ...` line, so a model sees both how a
 * command started and how it ended. Cuts prefer line boundaries.
 */
export function boundText(text: string, maxBytes: number): BoundedText {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return { text, truncated: false, omittedBytes: 0 };
  const markerReserve = 48;
  const budget = Math.max(0, maxBytes - markerReserve);
  let headEnd = Math.floor(budget / 2);
  let tailStart = bytes.length - (budget - headEnd);
  // Prefer whole lines when a line break is near the cut.
  const slack = Math.floor(budget / 8);
  const lastBreak = bytes.lastIndexOf(0x0a, headEnd - 1);
  if (lastBreak >= 0 && headEnd - lastBreak <= slack) headEnd = lastBreak + 1;
  const nextBreak = bytes.indexOf(0x0a, tailStart);
  if (nextBreak >= 0 && nextBreak - tailStart <= slack) tailStart = nextBreak + 1;
  // Never split a UTF-8 character.
  while (headEnd > 0 && (bytes[headEnd]! & 0xc0) === 0x80) headEnd--;
  while (tailStart < bytes.length && (bytes[tailStart]! & 0xc0) === 0x80) tailStart++;
  const omitted = tailStart - headEnd;
  const head = bytes.subarray(0, headEnd).toString('utf8');
  const tail = bytes.subarray(tailStart).toString('utf8');
  const sep = head.endsWith('\n') || head === '' ? '' : '\n';
  return { text: `${head}${sep}... ${omitted} bytes omitted ...\n${tail}`, truncated: true, omittedBytes: omitted };
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
