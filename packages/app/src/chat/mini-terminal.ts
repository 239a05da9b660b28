// A small read-only terminal for a chat's tool card, so a command an agent runs can be watched where it is
// mentioned.
import { Terminal, type ITerminalInitOnlyOptions, type ITerminalOptions } from '@xterm/xterm';
import { boundTerminalCounts, DisposableStore } from '@ptydeck/contract';
import { TERMINAL_THEME } from '../terminal/terminal-view.js';
import { TerminalFeed } from '../terminal/terminal-feed.js';

export interface MiniTerminalOptions {
  /** The session's width: the mini-terminal wraps lines where the PTY does. */
  cols: number;
  /** Most rows it grows to; earlier output scrolls back. */
  maxRows: number;
  /** Parsed output up to `cursor`: this view's share of the server's flow control. */
  onParsed(cursor: number): void;
  /** Opens an OSC 8 hyperlink of the output: untrusted, so through the panel's safe path, as a tab's are. */
  onLink(uri: string): void;
}

/**
 * The xterm.js options of a card's terminal. Its links go to `onLink`: without a handler xterm.js asks
 * `confirm()` and calls `window.open` itself, past the checks a tab's links go through (credentials in
 * the address, schemes other than http and https).
 */
export function miniTerminalOptions(options: Pick<MiniTerminalOptions, 'cols' | 'onLink'>): ITerminalOptions & ITerminalInitOnlyOptions {
  return {
    cols: options.cols,
    rows: MIN_ROWS,
    disableStdin: true,
    cursorBlink: false,
    cursorInactiveStyle: 'none',
    fontFamily: '"JetBrains Mono", "Fira Code", "Cascadia Code", Menlo, "DejaVu Sans Mono", monospace',
    fontSize: 11.5,
    lineHeight: 1.1,
    scrollback: 2_000,
    theme: TERMINAL_THEME,
    allowProposedApi: true, // the parser hooks of boundTerminalCounts
    linkHandler: { activate: (_event, uri) => options.onLink(uri), allowNonHttpProtocols: false },
  };
}

/** Fewest rows: a command with one line of output still reads as a terminal. */
const MIN_ROWS = 3;

/**
 * A small, read-only xterm.js view of a session, for a chat card: it shows
 * what runs, never takes keys (the session's tab in the panel does) and never
 * resizes the PTY (its tab owns the size). DOM renderer only: a chat can hold
 * many of these, and WebGL contexts are few.
 */
export class MiniTerminal {
  readonly element: HTMLDivElement;
  private readonly terminal: Terminal;
  /** Where the session's stream goes (see SessionStreams). */
  readonly feed: TerminalFeed;
  private readonly disposables = new DisposableStore();
  private opened = false;

  constructor(options: MiniTerminalOptions) {
    this.element = document.createElement('div');
    this.element.className = 'mini-terminal-host';
    this.terminal = new Terminal(miniTerminalOptions(options));
    this.disposables.add(() => this.terminal.dispose());
    // The command's output chooses these counts: unbounded, one sequence froze the whole page for hours.
    boundTerminalCounts(this.terminal);
    this.feed = new TerminalFeed(this.terminal, (cursor) => options.onParsed(cursor));
    // As tall as its output, up to maxRows: a card for `echo hi` is not ten empty rows.
    const growth = this.terminal.onWriteParsed(() => this.fitRows(options.maxRows));
    this.disposables.add(() => growth.dispose());
  }

  mount(parent: HTMLElement): void {
    if (this.element.parentElement !== parent) parent.appendChild(this.element);
    if (this.opened) return;
    this.opened = true;
    this.terminal.open(this.element);
  }

  private fitRows(maxRows: number): void {
    const buffer = this.terminal.buffer.active;
    const used = buffer.baseY + buffer.cursorY + 1;
    const rows = Math.max(MIN_ROWS, Math.min(maxRows, used));
    if (rows !== this.terminal.rows) this.terminal.resize(this.terminal.cols, rows);
  }

  /** Follows the session's width when its PTY is resized. */
  setCols(cols: number): void {
    if (cols !== this.terminal.cols) this.terminal.resize(cols, this.terminal.rows);
  }

  dispose(): void {
    this.disposables.dispose();
    this.element.remove();
  }
}
