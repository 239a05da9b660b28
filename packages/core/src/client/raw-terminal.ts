// The local terminal `ptydeck attach` runs in: raw mode while attached, always given back as it was.
import { nodeChildProcess } from '../common/lazy-builtins.js';
import type { Unsubscribe } from '@ptydeck/contract';

/**
 * Undoes what a session's program may have switched on in the local terminal
 * while its output passed through: the alternate screen, application cursor
 * keys and keypad, a hidden cursor, mouse reporting, bracketed paste, focus
 * events, synchronized output, a scroll region (saved and restored around,
 * as DECSTBM homes the cursor), insert mode, no autowrap, the cursor's shape,
 * a line-drawing character set (after the restore, which brings the saved
 * set back) and the current colours. The user's shell gets its terminal back
 * as it left it.
 */
export const MODE_RESET =
  '\x1b[?1049l' +
  '\x1b[?1l\x1b>' +
  '\x1b[?25h' +
  '\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1005l\x1b[?1006l\x1b[?1015l' +
  '\x1b[?2004l\x1b[?1004l\x1b[?2026l' +
  '\x1b7\x1b[r\x1b8' +
  '\x1b[4l\x1b[?7h\x1b[0 q' +
  '\x1b(B\x0f' +
  '\x1b[0m';

/** Clears the screen for a fresh copy of a session's (its modes reset first). */
export const CLEAR_FOR_REDRAW = `${MODE_RESET}\x1b[H\x1b[2J`;

export interface TerminalSize {
  cols: number;
  rows: number;
}

/**
 * The local terminal `ptydeck attach` runs in: raw mode on stdin while
 * attached, always restored, whichever way attach ends (restore() is also
 * bound to the process's exit, so even a crash gives the shell its terminal
 * back). Without a TTY it does nothing to stdin's modes.
 */
export class RawTerminal {
  private raw = false;
  private readonly restoreOnExit = () => this.restore();

  constructor(
    private readonly input: NodeJS.ReadStream,
    private readonly output: NodeJS.WriteStream,
  ) {}

  get isTerminal(): boolean {
    return Boolean(this.input.isTTY && this.output.isTTY);
  }

  /** Keys arrive one by one, unechoed, with Ctrl-C and Ctrl-\ as bytes instead of signals. */
  enterRaw(): void {
    if (this.raw) return;
    if (this.input.isTTY) {
      this.input.setRawMode(true);
      // Node's raw mode keeps output processing, which turns a program's bare line feed (a cursor
      // move down in vim or less) into CR LF. Off, as tmux's client has it; cooked mode restores it.
      // node:child_process loaded here only: an attach without a terminal (a script's, bench figure 12) never needs it.
      nodeChildProcess().spawnSync('stty', ['-opost'], { stdio: [(this.input as { fd?: number }).fd ?? 0, 'ignore', 'ignore'] });
    }
    this.raw = true;
    process.on('exit', this.restoreOnExit);
  }

  /** Cooked mode and the modes a session's program may have set; safe to call more than once. */
  restore(): void {
    if (!this.raw) return;
    this.raw = false;
    process.off('exit', this.restoreOnExit);
    // Synchronous on a TTY: done even when the process exits right after.
    if (this.output.isTTY) this.output.write(MODE_RESET);
    if (this.input.isTTY) this.input.setRawMode(false);
    this.input.pause();
  }

  size(): TerminalSize | undefined {
    const { columns, rows } = this.output;
    return this.output.isTTY && columns > 0 && rows > 0 ? { cols: columns, rows } : undefined;
  }

  /** The local window changed size (SIGWINCH). */
  onResize(listener: (size: TerminalSize) => void): Unsubscribe {
    const onResize = () => {
      const size = this.size();
      if (size) listener(size);
    };
    this.output.on('resize', onResize);
    return () => this.output.off('resize', onResize);
  }
}
