// What a model reads of a range of output: plain, bounded text that says what was left out.
import type { SessionId } from '@ptydeck/contract';
import type { PtyService } from '../pty/types.js';
import type { ByteRange } from './command-tracker.js';
import { boundText, headWithin, joinAroundOmission, renderPlainText, stripEcho, tailWithin } from './model-text.js';

/** What a model reads of a byte range: plain text, bounded, with what was left out said. */
export interface RenderedOutput {
  text: string;
  /** True when bytes were left out of the middle (the text says how many). */
  truncated: boolean;
  /** Bytes before `from` that the log had already trimmed, so nobody can read them. */
  skipped: number;
}

/** Ranges that are not output (prompts, echoes of the agent's own commands). */
export interface ChromeSource {
  chromeWithin(from: number, to: number): ByteRange[];
}

/** Echo expectations kept; older ones are behind every reader. */
const MAX_ECHOES = 256;
/**
 * A range up to this many times `maxBytes` is rendered whole and then bounded;
 * a longer one has only a head and a tail window rendered. Escape sequences
 * make raw bytes longer than the text they render to, hence the margin.
 */
const RENDER_WHOLE_FACTOR = 4;

/**
 * Turns a session's byte log into the text a model reads: escape sequences
 * and shell chrome left out, the echo of input the agent typed stripped, and
 * the result bounded before it is rendered, so a 4 MiB log costs the event
 * loop only the windows it returns.
 */
export class OutputView {
  private readonly echoes: Echo[] = [];

  constructor(
    private readonly service: PtyService,
    private readonly id: SessionId,
    private readonly chrome: ChromeSource,
  ) {}

  /** Input the agent typed at `cursor`: its echo is left out of what the agent reads. */
  expectEcho(cursor: number, input: string): void {
    this.echoes.push({ cursor, input });
    if (this.echoes.length > MAX_ECHOES) this.echoes.shift();
  }

  /** Plain text of [from, to), bounded to about `maxBytes` UTF-8 bytes keeping head and tail. */
  read(from: number, to: number, maxBytes: number): RenderedOutput {
    if (to <= from) return { text: '', truncated: false, skipped: 0 };
    if (to - from <= maxBytes * RENDER_WHOLE_FACTOR) return this.readWhole(from, to, maxBytes);
    const windows = this.windows(from, to, maxBytes);
    return windows.join(windows.head(), windows.tail());
  }

  /**
   * read(), with a long range's two windows each rendered in a turn of its own, `yieldTurn` before
   * each: rendering 64 KiB of colored output took 6 to 27 ms of a cold host's CPU in one piece
   * (bench figure 8). What is read and cut is taken in the caller's turn, as read() takes it, so the
   * text is read()'s whatever the log, its chrome or the echoes do meanwhile.
   */
  async readInTurns(from: number, to: number, maxBytes: number, yieldTurn: () => Promise<void>): Promise<RenderedOutput> {
    if (to <= from) return { text: '', truncated: false, skipped: 0 };
    if (to - from <= maxBytes * RENDER_WHOLE_FACTOR) return this.readWhole(from, to, maxBytes);
    const windows = this.windows(from, to, maxBytes);
    await yieldTurn();
    const head = windows.head();
    await yieldTurn();
    return windows.join(head, windows.tail());
  }

  private readWhole(from: number, to: number, maxBytes: number): RenderedOutput {
    const whole = this.render(from, to);
    const bounded = boundText(whole.text, maxBytes);
    return { text: bounded.text, truncated: bounded.truncated, skipped: whole.skipped };
  }

  /**
   * Too long to render whole: a window at each end, cut at line breaks so each starts and ends on a
   * line, and how many raw bytes lie between. Their bytes, chrome and echoes are taken now; each
   * renders when called.
   */
  private windows(from: number, to: number, maxBytes: number) {
    const window = maxBytes * 2;
    const start = this.service.read(this.id, { cursor: from, maxBytes: 1 }).cursor;
    const skipped = Math.max(0, start - from);
    const headEnd = this.lineBreakBefore(start, start + window);
    const tailStart = this.lineBreakAfter(to - window, to);
    const headWindow = this.prepare(start, headEnd);
    const tailWindow = this.prepare(tailStart, to);
    return {
      head: () => headWithin(headWindow().text, Math.floor(maxBytes / 2)),
      tail: () => tailWithin(tailWindow().text, Math.ceil(maxBytes / 2)),
      join: (head: { text: string; omittedBytes: number }, tail: { text: string; omittedBytes: number }): RenderedOutput => {
        const omitted = tailStart - headEnd + head.omittedBytes + tail.omittedBytes;
        return { text: joinAroundOmission(head.text, omitted, tail.text), truncated: true, skipped };
      },
    };
  }

  /**
   * UTF-8 bytes of the text read(from, to, maxBytes) returns before it is
   * bounded: what a model told of "unread bytes" gets when it reads, so
   * prompts, marks and escape sequences that render to nothing count 0. A
   * range read renders only windows of (past `maxBytes` times
   * RENDER_WHOLE_FACTOR) is not rendered for a count either: its raw bytes
   * outside chrome are counted, and a read of it is cut to about maxBytes.
   * Nor is one longer than `renderBudget`, the raw bytes its caller may still
   * render (terminal_list's budget over all its sessions).
   */
  textBytes(from: number, to: number, maxBytes: number, renderBudget = Infinity): number {
    if (to <= from) return 0;
    if (to - from <= Math.min(maxBytes * RENDER_WHOLE_FACTOR, renderBudget)) return Buffer.byteLength(this.render(from, to).text, 'utf8');
    let outside = to - from;
    for (const cut of this.chrome.chromeWithin(from, to)) outside -= Math.min(to, cut.end) - Math.max(from, cut.start);
    return Math.max(0, outside);
  }

  /** Plain text of [from, to) without bounds: for short ranges (prompt tails, progress lines). */
  render(from: number, to: number): { text: string; skipped: number } {
    return this.prepare(from, to)();
  }

  /** render(from, to), its bytes (a copy), chrome and echoes taken now and rendered when called. */
  private prepare(from: number, to: number): () => { text: string; skipped: number } {
    if (to <= from) return () => ({ text: '', skipped: 0 });
    const read = this.service.read(this.id, { cursor: from, maxBytes: to - from });
    const start = read.cursor;
    const stop = start + read.data.length;
    const segments: Array<{ from: number; to: number; echoes: Echo[] }> = [];
    let at = start;
    for (const cut of [...this.chrome.chromeWithin(start, stop), { start: stop, end: stop }]) {
      if (cut.start > at) segments.push({ from: at, to: cut.start, echoes: this.echoes.filter((e) => e.cursor >= at && e.cursor < cut.start) });
      at = Math.max(at, cut.end);
    }
    return () => ({ text: segments.map((segment) => renderSegment(read.data, start, segment.from, segment.to, segment.echoes)).join(''), skipped: read.skipped });
  }

  /** Raw bytes of [from, to) that end in the last line feed, or `to` when there is none. */
  lineEnd(from: number, to: number): number {
    if (to <= from) return from;
    const read = this.service.read(this.id, { cursor: from, maxBytes: to - from });
    const lastBreak = read.data.lastIndexOf(0x0a);
    return lastBreak < 0 ? read.cursor : read.cursor + lastBreak + 1;
  }

  /** One past the last line feed in [from, limit), or `limit` when there is none. */
  private lineBreakBefore(from: number, limit: number): number {
    const end = this.lineEnd(from, limit);
    return end > from ? end : limit;
  }

  /** One past the first line feed in [from, limit), or `from` when there is none. */
  private lineBreakAfter(from: number, limit: number): number {
    const read = this.service.read(this.id, { cursor: from, maxBytes: limit - from });
    const firstBreak = read.data.indexOf(0x0a);
    return firstBreak < 0 || read.cursor + firstBreak + 1 >= limit ? read.cursor : read.cursor + firstBreak + 1;
  }
}

/** Input the agent typed at `cursor`, whose echo is left out of what it reads. */
interface Echo {
  cursor: number;
  input: string;
}

/** Plain text of [from, to) of `data` (which starts at cursor `base`); the echo expectations `points` (inside it) split it, so each echo is stripped where it begins. */
function renderSegment(data: Uint8Array, base: number, from: number, to: number, points: readonly Echo[]): string {
  let text = '';
  let at = from;
  let echo: string | null = null;
  for (const point of [...points, { cursor: to, input: '' }]) {
    if (point.cursor > at) {
      const plain = renderPlainText(data.subarray(at - base, point.cursor - base));
      text += echo ? stripEcho(plain, echo) : plain;
    }
    at = Math.max(at, point.cursor);
    echo = point.input;
  }
  return text;
}
