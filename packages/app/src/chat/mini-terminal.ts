import { Terminal } from '@xterm/xterm';
import { DisposableStore } from '@ptydeck/contract';
import { TERMINAL_THEME } from '../terminal/terminal-view.js';
import { WriteFlow } from '../terminal/write-flow.js';
import type { StreamSink } from '../terminal/session-streams.js';

export interface MiniTerminalOptions {
  /** The session's width: the mini-terminal wraps lines where the PTY does. */
  cols: number;
  rows: number;
  /** Parsed output up to `cursor`: this view's share of the server's flow control. */
  onParsed(cursor: number): void;
}

/**
 * A small, read-only xterm.js view of a session, for a chat card: it shows
 * what runs, never takes keys (the session's tab in the panel does) and never
 * resizes the PTY (its tab owns the size). DOM renderer only: a chat can hold
 * many of these, and WebGL contexts are few.
 */
export class MiniTerminal implements StreamSink {
  readonly element: HTMLDivElement;
  private readonly terminal: Terminal;
  private readonly flow: WriteFlow;
  private readonly disposables = new DisposableStore();
  private opened = false;

  constructor(options: MiniTerminalOptions) {
    this.element = document.createElement('div');
    this.element.className = 'mini-terminal-host';
    this.terminal = new Terminal({
      cols: options.cols,
      rows: options.rows,
      disableStdin: true,
      cursorBlink: false,
      cursorInactiveStyle: 'none',
      fontFamily: '"JetBrains Mono", "Fira Code", "Cascadia Code", Menlo, "DejaVu Sans Mono", monospace',
      fontSize: 11.5,
      lineHeight: 1.1,
      scrollback: 2_000,
      theme: TERMINAL_THEME,
    });
    this.disposables.add(() => this.terminal.dispose());
    this.flow = new WriteFlow({
      write: (data, parsed) => this.terminal.write(data, parsed),
      ack: (cursor) => options.onParsed(cursor),
    });
  }

  write(data: Uint8Array, next: number): void {
    this.flow.push(data, next);
  }

  /** RIS through the write queue, as TerminalView.restore does, so older queued output cannot land on it. */
  restore(screen: string, cursor: number): void {
    this.flow.restored(cursor);
    this.terminal.write('\x1bc');
    this.terminal.write(screen);
  }

  mount(parent: HTMLElement): void {
    if (this.element.parentElement !== parent) parent.appendChild(this.element);
    if (this.opened) return;
    this.opened = true;
    this.terminal.open(this.element);
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
