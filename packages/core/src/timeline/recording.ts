/**
 * A session's recording as asciinema plays it (asciicast v3, or v2 for older
 * players) or as plain text: its output as the log keeps it, timed by when
 * each chunk arrived, a marker at each command with its command line, its
 * resizes, and (v3) its exit status last. Only output is recorded, never
 * input: what a person typed at a prompt with echo off (a password) was never
 * output, so it is in no recording. Nor are ptydeck's own marks (privateMarks).
 */
import type { CommandRecord, SessionInfo } from '@ptydeck/contract';
import { renderPlainText } from '../terminal-tool/index.js';
import type { ChunkTime } from './chunk-times.js';
import { SequenceScanner } from '../vt/index.js';

export const RECORDING_FORMATS = ['asciicast-v3', 'asciicast-v2', 'text'] as const;
export type RecordingFormat = (typeof RECORDING_FORMATS)[number];

export interface Resize {
  cursor: number;
  time: number;
  cols: number;
  rows: number;
}

export interface RecordingInput {
  info: SessionInfo;
  /** The log's bytes, the first at cursor `start`. */
  bytes: Uint8Array;
  start: number;
  times: readonly ChunkTime[];
  commands: readonly CommandRecord[];
  resizes: readonly Resize[];
  /** The terminal's size when the recording's first byte arrived. */
  size: { cols: number; rows: number };
}

/**
 * What JSON.stringify leaves raw of the controls: DEL, the C1 code points
 * (xterm and xterm.js reading UTF-8 take U+009D for OSC and U+009B for CSI),
 * and the bidirectional overrides and isolates. A recording is a session's
 * output, the agent's to choose, and `ptydeck export` writes it to the
 * developer's terminal: written raw, an OSC 52 in this form set its clipboard.
 */
const UNESCAPED_BY_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** One line of an asciicast: JSON with every control escaped, the same value to whatever parses it. */
function castLine(value: unknown): string {
  return JSON.stringify(value).replace(UNESCAPED_BY_JSON, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

type Event = { at: number; code: 'o' | 'r' | 'm' | 'x'; data: string };

export function buildRecording(input: RecordingInput, format: RecordingFormat): string {
  // A trimmed log's first bytes may be a mark's tail (its key), which no parse from there takes for a sequence.
  if (format === 'text') return renderPlainText(input.start > 0 ? input.bytes.subarray(oscTailLength(input.bytes)) : input.bytes);
  const events = recordingEvents(input);
  const began = events[0]?.at ?? input.info.createdAt;
  const title = input.info.title || input.info.command;
  const header =
    format === 'asciicast-v3'
      ? { version: 3, term: { cols: input.size.cols, rows: input.size.rows, type: 'xterm-256color' }, timestamp: Math.floor(began / 1000), title, command: commandOf(input.info) }
      : { version: 2, width: input.size.cols, height: input.size.rows, timestamp: Math.floor(began / 1000), title, env: { TERM: 'xterm-256color' } };
  const lines = [castLine(header)];
  let previous = began;
  for (const event of events) {
    // v3 counts from the previous event, v2 from the start.
    const seconds = format === 'asciicast-v3' ? (event.at - previous) / 1000 : (event.at - began) / 1000;
    previous = event.at;
    if (format === 'asciicast-v2' && event.code === 'x') continue;
    lines.push(castLine([Number(seconds.toFixed(6)), event.code, event.data]));
  }
  return `${lines.join('\n')}\n`;
}

/** The events in order: output cut at each chunk time, marker and resize, each at a character's start. */
function recordingEvents(input: RecordingInput): Event[] {
  const { bytes, start } = input;
  const end = start + bytes.length;
  const cuts = new Map<number, Event[]>();
  const at = (cursor: number) => characterStart(bytes, Math.min(Math.max(cursor, start), end) - start) + start;
  const add = (cursor: number, event: Event) => {
    const key = at(cursor);
    cuts.set(key, [...(cuts.get(key) ?? []), event]);
  };
  const fallback = input.times[0]?.time ?? input.info.createdAt;
  const timeAt = timeLookup(input.times, fallback);
  for (const resize of input.resizes) if (resize.cursor >= start && resize.cursor <= end) add(resize.cursor, { at: resize.time, code: 'r', data: `${resize.cols}x${resize.rows}` });
  for (const command of input.commands) {
    if (command.output.start < start || command.output.start > end) continue;
    add(command.output.start, { at: command.startedAt, code: 'm', data: command.command ?? '' });
  }
  const boundaries = new Set<number>([start, end, ...cuts.keys()]);
  for (const time of input.times) if (time.cursor > start && time.cursor < end) boundaries.add(at(time.cursor));
  const sorted = [...boundaries].sort((a, b) => a - b);
  const without = outputWithout(bytes, [...privateMarks(bytes, { startsMidStream: start > 0 }), ...clipboardSequences(bytes)].sort((a, b) => a[0] - b[0]));
  const events: Event[] = [];
  let last = Number.NEGATIVE_INFINITY;
  // Times never go backwards: a marker's clock and a chunk's are read apart.
  const push = (event: Event) => {
    last = Math.max(last, event.at);
    events.push({ ...event, at: last });
  };
  for (let i = 0; i < sorted.length; i++) {
    const from = sorted[i]!;
    for (const event of cuts.get(from) ?? []) push(event);
    const to = sorted[i + 1];
    if (to === undefined || to <= from) continue;
    const data = without(from - start, to - start);
    if (data !== '') push({ at: timeAt(from), code: 'o', data });
  }
  const { info } = input;
  if (info.status === 'exited' && info.exitedAt !== null) {
    const status = info.exitCode ?? (info.signal ? 128 : 0);
    push({ at: info.exitedAt, code: 'x', data: String(status) });
  }
  return events;
}

/**
 * Where ptydeck's own marks are in `bytes` ([start, end) offsets, in order):
 * OSC 6973 (the shell's key, nonce runs) and the OSC 133 / 633 marks that
 * carry the key (`k=`). The key is what makes a mark unforgeable by output: a
 * recording is for sharing, and a live session's key in a file an agent's
 * shell can read would let it print marks that forge its commands' records.
 * A player draws nothing for them, so nothing visible goes; OSC 7 (the cwd)
 * and a prompt's own marks without the key stay.
 */
export function privateMarks(bytes: Uint8Array, options: { startsMidStream?: boolean } = {}): Array<[number, number]> {
  const marks: Array<[number, number]> = [];
  // A log keeps its last bytes, cut anywhere: its first may be inside a mark, whose tail (the key) no scan from here sees as one.
  if (options.startsMidStream) {
    const tail = oscTailLength(bytes);
    if (tail > 0) marks.push([0, tail]);
  }
  // The scanner every reader of output shares: an OSC ends and aborts here as it does in a terminal.
  const scanner = new SequenceScanner();
  scanner.on({
    osc: (payload, start, end) => {
      if (isPrivateMark(payload)) marks.push([start, end]);
    },
  });
  scanner.scan(0, bytes);
  // One cut off by the log's end is a mark still being written.
  const open = scanner.safeEnd;
  if (open < bytes.length && bytes[open] === 0x1b && bytes[open + 1] === 0x5d && isPrivateMark(bytes.subarray(open + 2))) marks.push([open, bytes.length]);
  return marks;
}

/** OSCs that reach past a terminal's screen: the clipboard (52; kitty's 5522; iTerm2's 1337, CopyToClipboard and files). */
const PAST_THE_SCREEN = new Set([52, 1337, 5522]);

/**
 * Where `bytes` holds an OSC that writes the clipboard (or a file) of the
 * terminal showing it ([start, end) offsets, in order), in its 7-bit form
 * (`ESC ]`) and as UTF-8's U+009D, which xterm and xterm.js take for OSC:
 * `asciinema play` and `cat` write a recording's output to the developer's
 * own terminal, where an agent's `\e]52;c;<base64>\a` would put a line of
 * its choosing on their clipboard. Read as a terminal reads it (SKIPPED):
 * `\e\0]52;...` and `\e]5\x012;...` are OSC 52 to xterm.js and xterm too.
 * Each runs to its BEL, ST (`ESC \` or U+009C) or the end: past where a
 * terminal would end it, if anything, so what is left is never an OSC the
 * terminal takes up again.
 */
export function clipboardSequences(bytes: Uint8Array): Array<[number, number]> {
  const found: Array<[number, number]> = [];
  for (let i = 0; i < bytes.length - 1; i++) {
    let at = oscStart(bytes, i);
    if (at < 0) continue;
    const digits = at;
    let number = 0;
    for (; at < bytes.length && number < 100_000; at++) {
      const byte = bytes[at]!;
      if (byte >= 0x30 && byte <= 0x39) number = number * 10 + byte - 0x30;
      else if (!SKIPPED(byte) || byte === 0x07) break;
    }
    if (!PAST_THE_SCREEN.has(number) || !bytes.subarray(digits, at).some((byte) => byte >= 0x30 && byte <= 0x39)) continue;
    if (at < bytes.length && bytes[at] !== 0x3b && bytes[at] !== 0x07 && bytes[at] !== 0x1b) continue;
    let end = bytes.length;
    for (let j = at; j < bytes.length; j++) {
      const byte = bytes[j]!;
      if (byte === 0x07) end = j + 1;
      else if (byte === 0x1b && bytes[j + 1] === 0x5c) end = j + 2;
      else if (byte === 0xc2 && bytes[j + 1] === 0x9c) end = j + 2;
      else continue;
      break;
    }
    found.push([i, end]);
    i = end - 1;
  }
  return found;
}

/**
 * The C0 controls a terminal carries out between ESC and the byte that says
 * what it starts, and ignores inside an OSC (VT500's parser, as xterm and
 * xterm.js have it): all but CAN and SUB, which abort, and ESC, which starts
 * over. BEL ends an OSC, so it is not skipped in one.
 */
const SKIPPED = (byte: number) => byte <= 0x17 || byte === 0x19 || (byte >= 0x1c && byte <= 0x1f);

/** Where an OSC that starts at `i` has its first byte after the introducer (`ESC`, what SKIPPED and DEL pass, `]`; or U+009D), or -1. */
function oscStart(bytes: Uint8Array, i: number): number {
  if (bytes[i] === 0xc2 && bytes[i + 1] === 0x9d) return i + 2;
  if (bytes[i] !== 0x1b) return -1;
  let at = i + 1;
  while (at < bytes.length && (SKIPPED(bytes[at]!) || bytes[at] === 0x7f)) at++;
  return bytes[at] === 0x5d ? at + 1 : -1;
}

const KEY_PARAM = Buffer.from('k=');
/** Cancel: ends any escape sequence in progress (ECMA-48, xterm, xterm.js) and draws nothing. */
const CAN = '\x18';

/**
 * How many of the first bytes may be the end of an OSC begun before them: a run with no control
 * (a mark's payload holds none: the shell escapes them) up to a BEL or an ST, which it includes; 0
 * when a line break or an ESC starting anything else comes first (that is output). Text on a
 * trimmed log's first line up to a bell goes with it, which costs a recording nothing it needs.
 */
function oscTailLength(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (byte === 0x07) return i + 1;
    if (byte === 0x1b) return bytes[i + 1] === 0x5c ? i + 2 : 0;
    if (byte < 0x20 || byte === 0x7f) return 0;
  }
  return 0;
}

function isPrivateMark(payload: Uint8Array): boolean {
  const text = (n: number) => String.fromCharCode(...payload.subarray(0, n));
  if (text(5) === '6973;') return true;
  const head = text(4);
  return (head === '133;' || head === '633;') && Buffer.from(payload.buffer, payload.byteOffset, payload.length).includes(KEY_PARAM);
}

/**
 * The text of bytes [from, to), each range in `marks` replaced by one CAN;
 * called with ascending slices, so it walks the marks once. The marks start
 * and end at whole characters, so none is cut. CAN ends whatever sequence was
 * open before the range, and draws nothing: left out with nothing in its place,
 * a range joined what surrounded it, and `\e]\e]6973;x\a52;c;<base64>\a`
 * (a terminal aborts the first OSC at the second) became an OSC 52.
 */
function outputWithout(bytes: Uint8Array, marks: ReadonlyArray<[number, number]>): (from: number, to: number) => string {
  const decoder = new TextDecoder();
  let next = 0;
  return (from, to) => {
    while (next < marks.length && marks[next]![1] <= from) next++;
    let text = '';
    let at = from;
    for (let i = next; i < marks.length && marks[i]![0] < to; i++) {
      const [markStart, markEnd] = marks[i]!;
      if (markStart > at) text += decoder.decode(bytes.subarray(at, markStart));
      if (markStart >= from && markEnd > at) text += CAN;
      at = Math.max(at, markEnd);
    }
    if (at < to) text += decoder.decode(bytes.subarray(at, to));
    return text;
  };
}

/** When the byte at a cursor had arrived: the chunk time at or before it. */
function timeLookup(times: readonly ChunkTime[], fallback: number): (cursor: number) => number {
  return (cursor) => {
    let lo = 0;
    let hi = times.length - 1;
    let found = fallback;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (times[mid]!.cursor <= cursor) {
        found = times[mid]!.time;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  };
}

/** `offset`, moved forward past UTF-8 continuation bytes, so no event cuts a character. */
function characterStart(bytes: Uint8Array, offset: number): number {
  let at = offset;
  while (at < bytes.length && at - offset < 3 && (bytes[at]! & 0xc0) === 0x80) at++;
  return at;
}

function commandOf(info: SessionInfo): string {
  return [info.command, ...info.args].join(' ');
}

/** The events a recording of ours holds; a recording from elsewhere keeps only these. */
const RECORDED_CODES = new Set(['o', 'r', 'm', 'x']);

/**
 * A recording another host made (a remote's, relayed: `timeline.exported`), made to hold no more than one
 * of ours would. The ptydeck on a remote box is whatever its user put first in its PATH there (a box-side
 * agent's shell), so its answer is untrusted: before, its `\e]52;c;…\a` reached the file the panel
 * downloads as it was, and `asciinema cat` or `cat` of that file set the clipboard of the developer's
 * terminal. The text format is made plain again; an asciicast keeps its header and the lines that are
 * events of ours, each written as castLine writes it, and leaves out of the output events, read as one
 * stream (a sequence may be cut across two events), what buildRecording leaves out. A line that is no
 * such event is dropped.
 */
export function reviewedRecording(format: RecordingFormat, data: string): string {
  if (format === 'text') return renderPlainText(data);
  const [first, ...rest] = data.split('\n');
  const header = parseLine(first ?? '');
  if (header === undefined || typeof header !== 'object' || header === null || Array.isArray(header)) return '';
  const events: Array<[number, string, string]> = [];
  for (const line of rest) {
    const event = parseLine(line);
    if (!Array.isArray(event) || event.length !== 3) continue;
    const [at, code, text] = event as unknown[];
    if (typeof at === 'number' && Number.isFinite(at) && typeof code === 'string' && RECORDED_CODES.has(code) && typeof text === 'string') events.push([at, code, text]);
  }
  const outputs = events.filter(([, code]) => code === 'o').map(([, , text]) => Buffer.from(text, 'utf8'));
  const bytes = Buffer.concat(outputs);
  const without = outputWithout(bytes, [...privateMarks(bytes), ...clipboardSequences(bytes)].sort((a, b) => a[0] - b[0]));
  const lines = [castLine(header)];
  let offset = 0;
  for (const [at, code, text] of events) {
    if (code !== 'o') {
      lines.push(castLine([at, code, text]));
      continue;
    }
    const length = Buffer.byteLength(text, 'utf8');
    lines.push(castLine([at, code, without(offset, offset + length)]));
    offset += length;
  }
  return `${lines.join('\n')}\n`;
}

function parseLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}
