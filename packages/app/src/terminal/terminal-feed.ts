// Feeds one xterm.js terminal its session's stream, acknowledging output as it is parsed so the server's flow
// control works, and telling when the output before a given cursor has been parsed (where a command starts).
import type { Terminal } from '@xterm/xterm';
import type { ScreenMark } from '@ptydeck/contract';
import { cutOffsets } from './command-marks.js';
import type { StreamSink } from './session-streams.js';
import { WriteFlow } from './write-flow.js';

const NOTHING = new Uint8Array(0);

/** What the owner of the terminal's marks hears of a restored screen. */
export interface RestoreHooks {
  /**
   * A restored screen replaces the terminal's: whatever was placed on the old
   * buffer is void. Called at once, before the waiters the screen skips hear of it.
   */
  restoring(): void;
  /** The restored screen is parsed (nothing after it yet): `marks` are rows of it. */
  restored(marks: readonly ScreenMark[]): void;
}

const NO_HOOKS: RestoreHooks = { restoring: () => undefined, restored: () => undefined };

interface Waiter {
  cursor: number;
  reached: (parsed: boolean) => void;
}

/**
 * Feeds one xterm.js terminal a session's stream: output through the write
 * flow (acknowledged as parsed), screens restored through the same queue.
 * The panel's tab view and a chat card's mini-terminal each own one.
 */
export class TerminalFeed implements StreamSink {
  private readonly flow: WriteFlow;
  /** Cursor one past the last output handed to the terminal (or of the last restored screen). */
  private fed = 0;
  /** Cursors someone waits for, ascending, all past `fed`. */
  private waiters: Waiter[] = [];

  constructor(
    private readonly terminal: Pick<Terminal, 'write'>,
    /** Parsed output up to `cursor` (batched): the server's flow control. */
    ack: (cursor: number) => void,
    /** Restored screens, for the terminal's command marks. */
    private readonly hooks: RestoreHooks = NO_HOOKS,
  ) {
    this.flow = new WriteFlow({ write: (data, parsed) => terminal.write(data, parsed), ack });
  }

  /**
   * Output bytes, in arrival order, ending at cursor `next`; xterm.js joins
   * UTF-8 sequences split across frames. Cut where a waiter's cursor falls, so
   * its callback sees the terminal with exactly the output before it parsed.
   */
  write(data: Uint8Array, next: number): void {
    const from = next - data.length;
    this.fed = next;
    if (this.waiters.length === 0 || this.waiters[0]!.cursor > next) {
      this.flow.push(data, next);
      return;
    }
    const due = this.waiters.filter((waiter) => waiter.cursor <= next);
    this.waiters = this.waiters.filter((waiter) => waiter.cursor > next);
    let offset = 0;
    for (const cut of cutOffsets(from, next, due.map((waiter) => waiter.cursor))) {
      if (cut > offset) this.flow.push(data.subarray(offset, cut), from + cut);
      offset = cut;
      // An empty write's callback runs once everything written before it is parsed.
      for (const waiter of due) if (waiter.cursor === from + cut) this.terminal.write(NOTHING, () => waiter.reached(true));
    }
    if (offset < data.length) this.flow.push(data.subarray(offset), next);
  }

  /**
   * Calls `reached(true)` once the terminal has parsed the output before
   * `cursor` and nothing after it, or `reached(false)` if a restored screen
   * skips it. Returns false (and never calls) when that output is already
   * handed over: too late to tell.
   */
  whenParsed(cursor: number, reached: (parsed: boolean) => void): boolean {
    if (cursor < this.fed) return false;
    if (cursor === this.fed) {
      this.terminal.write(NOTHING, () => reached(true));
      return true;
    }
    const at = this.waiters.findIndex((waiter) => waiter.cursor > cursor);
    this.waiters.splice(at < 0 ? this.waiters.length : at, 0, { cursor, reached });
    return true;
  }

  /**
   * Replaces the screen with a server snapshot. RIS goes through the write
   * queue (unlike `terminal.reset()`, which acts at once) so output still
   * queued from before cannot land on top of the restored screen.
   */
  restore(screen: string, cursor: number, marks: readonly ScreenMark[] = []): void {
    this.flow.restored(cursor);
    this.fed = cursor;
    this.hooks.restoring();
    const skipped = this.waiters.filter((waiter) => waiter.cursor < cursor);
    const now = this.waiters.filter((waiter) => waiter.cursor === cursor);
    this.waiters = this.waiters.filter((waiter) => waiter.cursor > cursor);
    for (const waiter of skipped) waiter.reached(false);
    this.terminal.write('\x1bc');
    this.terminal.write(screen, () => this.hooks.restored(marks));
    for (const waiter of now) this.terminal.write(NOTHING, () => waiter.reached(true));
  }
}
