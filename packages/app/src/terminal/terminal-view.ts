// A tab's xterm.js terminal: renderer choice, fitting, links and search, reporting input and size to the panel.
import { FitAddon } from '@xterm/addon-fit';
import { SearchAddon } from '@xterm/addon-search';
import { Unicode11Addon } from '@xterm/addon-unicode11';
import { WebLinksAddon } from '@xterm/addon-web-links';
import { WebglAddon } from '@xterm/addon-webgl';
import { Terminal, type ITheme } from '@xterm/xterm';
import { boundTerminalCounts, DisposableStore, type CommandRecord, type ScreenMark } from '@ptydeck/contract';
import { MAC_PLATFORM, matchClipboardKey } from './clipboard-keys.js';
import { CommandGutter } from './command-gutter.js';
import { commandJumpKey } from './command-marks.js';
import { matchShortcut } from './shortcuts.js';
import { TerminalFeed } from './terminal-feed.js';
import type { TextClipboard } from './text-clipboard.js';

export interface TerminalViewOptions {
  id: string;
  /** The PTY's current size: what the server already has, so an equal fit sends nothing. */
  cols: number;
  rows: number;
  onInput(data: string): void;
  onResize(cols: number, rows: number): void;
  onFocusChange(focused: boolean): void;
  onLink(uri: string): void;
  /** The terminal has parsed output up to `cursor` (batched): the server's flow control. */
  onParsed(cursor: number): void;
  clipboard: TextClipboard;
  /** Copying or pasting failed (the browser refused the clipboard, say): tell the developer. */
  onClipboardError(action: 'copy' | 'paste', error: unknown): void;
  /** A command's menu was asked for (its gutter mark clicked, or the menu key after a jump), at a point of the window. */
  onCommandMenu(commandId: string, x: number, y: number): void;
}

export const TERMINAL_THEME: ITheme = {
  background: '#0d1117',
  foreground: '#d6deeb',
  cursor: '#7fdbca',
  cursorAccent: '#0d1117',
  selectionBackground: '#2d4f67',
  black: '#1d2330', red: '#ef6b73', green: '#8fd18b', yellow: '#e6c07b',
  blue: '#6cb6ff', magenta: '#c792ea', cyan: '#7fdbca', white: '#c8d3e0',
  brightBlack: '#5c6773', brightRed: '#ff8b92', brightGreen: '#a9e5a5', brightYellow: '#f3d597',
  brightBlue: '#8fcaff', brightMagenta: '#ddb0f6', brightCyan: '#a3f0e0', brightWhite: '#ffffff',
  scrollbarSliderBackground: 'rgba(140, 160, 190, 0.18)',
  scrollbarSliderHoverBackground: 'rgba(140, 160, 190, 0.32)',
  scrollbarSliderActiveBackground: 'rgba(140, 160, 190, 0.45)',
};

let webglSupport: boolean | undefined;
/**
 * WebGL only where it is fast. Headless and GPU-less browsers either have no
 * WebGL2 or emulate it in software (SwiftShader, llvmpipe), which costs more
 * than the DOM renderer: a software context alone takes longer to set up than a
 * frame. Chromium reports those as a "major performance caveat".
 */
function canUseWebgl(): boolean {
  if (webglSupport === undefined) {
    try {
      const gl = document.createElement('canvas').getContext('webgl2', { failIfMajorPerformanceCaveat: true });
      const info = gl?.getExtension('WEBGL_debug_renderer_info');
      const renderer = gl && info ? String(gl.getParameter(info.UNMASKED_RENDERER_WEBGL)) : '';
      webglSupport = gl !== null && !/swiftshader|llvmpipe|software/i.test(renderer);
      gl?.getExtension('WEBGL_lose_context')?.loseContext();
    } catch {
      webglSupport = false;
    }
  }
  return webglSupport;
}

/**
 * One session's xterm.js terminal. It outlives tab switches and panel toggles
 * (hidden, never disposed until its tab closes) so the screen and scrollback
 * persist. Output is written straight to xterm.js as it arrives.
 */
export class TerminalView {
  /** Host element; the panel places it, the view owns it. */
  readonly element: HTMLDivElement;
  private readonly terminal: Terminal;
  private readonly fitAddon = new FitAddon();
  private readonly searchAddon = new SearchAddon();
  private webgl: WebglAddon | null = null;
  private readonly disposables = new DisposableStore();
  private readonly feed: TerminalFeed;
  private readonly gutter: CommandGutter;
  private opened = false;
  private exited = false;
  private offline = false;
  private readOnly = false;
  /** Size the PTY was last told (or already had). */
  private reported: { cols: number; rows: number } | null;

  constructor(private readonly options: TerminalViewOptions) {
    this.element = document.createElement('div');
    this.element.className = 'terminal-host';
    this.reported = { cols: options.cols, rows: options.rows };
    this.terminal = new Terminal({
      cols: options.cols,
      rows: options.rows,
      allowProposedApi: true, // unicode11 registers through the proposed unicode API
      fontFamily: '"JetBrains Mono", "Fira Code", "Cascadia Code", Menlo, "DejaVu Sans Mono", monospace',
      fontSize: 13,
      lineHeight: 1.15,
      cursorBlink: true,
      cursorInactiveStyle: 'outline',
      scrollback: 10_000,
      // The command marks' ruler, as wide as the scrollbar it shares the edge with (the fit addon counts this width).
      overviewRuler: { width: 14 },
      theme: TERMINAL_THEME,
      // OSC 8 hyperlinks: untrusted, so through the same safe path as plain URLs.
      linkHandler: { activate: (_event, uri) => options.onLink(uri), allowNonHttpProtocols: false },
    });
    this.disposables.add(() => this.terminal.dispose());
    // The session's output chooses these counts: unbounded, one sequence froze the whole page for hours.
    boundTerminalCounts(this.terminal);
    this.feed = new TerminalFeed(this.terminal, (cursor) => options.onParsed(cursor), {
      restoring: () => this.gutter.restoring(),
      restored: (marks) => this.gutter.restored(marks),
    });
    this.gutter = new CommandGutter(this.terminal, {
      whenParsed: (cursor, reached) => this.feed.whenParsed(cursor, reached),
      onMarkClick: (id, anchor) => {
        // Below the command line, so the menu does not hide it.
        const box = anchor.getBoundingClientRect();
        options.onCommandMenu(id, box.right, box.bottom);
      },
    });
    this.disposables.add(() => this.gutter.dispose());
    this.terminal.loadAddon(this.fitAddon);
    this.terminal.loadAddon(this.searchAddon);
    this.terminal.loadAddon(new WebLinksAddon((_event, uri) => options.onLink(uri)));
    this.terminal.loadAddon(new Unicode11Addon());
    this.terminal.unicode.activeVersion = '11';
    // Panel shortcuts and clipboard keys win over the shell: xterm.js must not turn them into bytes.
    this.terminal.attachCustomKeyEventHandler((event) => matchShortcut(event) === null && !this.clipboardKey(event) && !this.commandKey(event));
    const input = (data: string) => {
      this.gutter.deselect();
      options.onInput(data);
    };
    this.disposables.add(disposeOf(this.terminal.onData(input)));
    this.disposables.add(disposeOf(this.terminal.onBinary(input)));
  }

  /**
   * Output bytes ending at cursor `next`. What is parsed is acknowledged, so the
   * server never has more than a window of output queued ahead of the screen.
   */
  write(data: Uint8Array, next: number): void {
    this.feed.write(data, next);
  }

  /** Replaces the screen with a server snapshot (see TerminalFeed.restore). */
  restore(screen: string, cursor: number, marks?: readonly ScreenMark[]): void {
    this.feed.restore(screen, cursor, marks);
  }

  /** A command of this session as it is now (started or ended): its gutter mark. */
  command(record: CommandRecord): void {
    // A closed session's record points into output that went with it: one naming this open session's id was planted
    // on disk (or left by a host killed as it closed it), and its cursors would mark this terminal's output.
    if (record.closed) return;
    this.gutter.update(record);
  }

  /** The commands marked in this terminal, in buffer order, and the top row shown (tests and diagnostics). */
  commandMarks(): { viewportY: number; marks: ReturnType<CommandGutter['marks']> } {
    return { viewportY: this.terminal.buffer.active.viewportY, marks: this.gutter.marks() };
  }

  /** The record of a command marked here. */
  commandRecord(id: string): CommandRecord | undefined {
    return this.gutter.record(id);
  }

  /** A marked command's output as the terminal shows it; null when it is not (all) here. */
  commandOutput(id: string): string | null {
    return this.gutter.outputOf(id);
  }

  /** Scrolls a command's line to the top; false when it has no mark here. */
  revealCommand(id: string): boolean {
    return this.gutter.reveal(id);
  }

  /** Places the view in the panel; the first time, opens xterm.js there. */
  mount(parent: HTMLElement): void {
    if (this.element.parentElement !== parent) parent.appendChild(this.element);
    if (this.opened) return;
    this.opened = true;
    this.terminal.open(this.element);
    const textarea = this.terminal.textarea;
    if (textarea) {
      const onFocus = () => this.options.onFocusChange(true);
      const onBlur = () => this.options.onFocusChange(false);
      textarea.addEventListener('focus', onFocus);
      textarea.addEventListener('blur', onBlur);
      this.disposables.add(() => {
        textarea.removeEventListener('focus', onFocus);
        textarea.removeEventListener('blur', onBlur);
      });
    }
    this.loadWebgl();
  }

  /** Fits the terminal to its host and tells the PTY when the size changed. No-op while hidden. */
  fit(): void {
    const fitting = this.fittingSize();
    if (!fitting) return;
    const { cols, rows } = fitting;
    if (cols !== this.terminal.cols || rows !== this.terminal.rows) this.terminal.resize(cols, rows);
    if (!this.reported || this.reported.cols !== cols || this.reported.rows !== rows) {
      this.reported = { cols, rows };
      this.options.onResize(cols, rows);
    }
  }

  /** The size that fills the host now, or null while hidden or not yet measurable. */
  fittingSize(): { cols: number; rows: number } | null {
    if (!this.opened || this.element.clientWidth === 0 || this.element.clientHeight === 0) return null;
    const proposed = this.fitAddon.proposeDimensions();
    if (!proposed || !Number.isFinite(proposed.cols) || !Number.isFinite(proposed.rows)) return null;
    // The contract's bounds; fewer than 2 columns breaks wide characters.
    return { cols: clamp(proposed.cols, 2, 1000), rows: clamp(proposed.rows, 1, 500) };
  }

  /** After a reconnect the server may have another size; the next fit reports ours again. */
  forgetReportedSize(): void {
    this.reported = null;
  }

  get size(): { cols: number; rows: number } {
    return { cols: this.terminal.cols, rows: this.terminal.rows };
  }

  focus(): void {
    this.terminal.focus();
  }

  /** An exited process reads nothing: stop taking keystrokes and show it with the cursor. */
  setExited(exited: boolean): void {
    this.exited = exited;
    this.applyInputState();
    if (exited) this.terminal.blur();
  }

  /** While the panel is not connected keys cannot reach the shell: take none, rather than drop them. */
  setOffline(offline: boolean): void {
    this.offline = offline;
    this.applyInputState();
  }

  /** A display-only session (an agent's own command) takes no keystrokes at all. */
  setReadOnly(readOnly: boolean): void {
    if (this.readOnly === readOnly) return;
    this.readOnly = readOnly;
    this.applyInputState();
  }

  /** Whether text is selected: what Copy would copy. */
  hasSelection(): boolean {
    return this.terminal.hasSelection();
  }

  /** Puts the selection on the clipboard; false with nothing selected. */
  copySelection(): boolean {
    if (!this.terminal.hasSelection()) return false;
    this.options.clipboard.writeText(this.terminal.getSelection()).catch((error: unknown) => this.options.onClipboardError('copy', error));
    return true;
  }

  /**
   * Pastes the clipboard's text as typed input, through xterm.js: bracketed
   * when the program asked for it (a shell then does not run a pasted line).
   */
  pasteFromClipboard(): void {
    if (!this.takesInput) return;
    this.options.clipboard.readText().then(
      (text) => {
        if (text !== '' && this.takesInput) this.terminal.paste(text);
      },
      (error: unknown) => this.options.onClipboardError('paste', error),
    );
  }

  selectAll(): void {
    this.terminal.selectAll();
  }

  /** Whether keys and pastes reach the process now. */
  get takesInput(): boolean {
    return !(this.exited || this.offline || this.readOnly);
  }

  /**
   * Handles a copy or paste key; true when it was one (xterm.js then leaves it
   * alone). A paste key does nothing here: not cancelled, it goes on to the
   * browser's own paste, whose event xterm.js turns into (bracketed) input, and
   * which needs no permission to read the clipboard.
   */
  private clipboardKey(event: KeyboardEvent): boolean {
    const action = matchClipboardKey(event, { mac: MAC_PLATFORM, hasSelection: this.terminal.hasSelection() });
    if (action === null) return false;
    if (event.type === 'keydown' && action !== 'paste') {
      // The browser's own use of the chord (Ctrl+Shift+C opens Chromium's inspector) must not run.
      event.preventDefault();
      this.copySelection();
      if (action === 'copy-and-clear') this.terminal.clearSelection();
    }
    return true;
  }

  /**
   * Ctrl+Up / Ctrl+Down jump between commands (not in a full-screen program,
   * which may want them), and the menu key opens the menu of the command
   * jumped to; true when it was one of those (xterm.js then sends nothing).
   */
  private commandKey(event: KeyboardEvent): boolean {
    const jump = commandJumpKey(event);
    if (jump !== null) {
      if (this.terminal.buffer.active.type !== 'normal') return false;
      if (event.type === 'keydown') {
        event.preventDefault();
        this.gutter.jump(jump);
      }
      return true;
    }
    const menuKey = event.key === 'ContextMenu' || (event.key === 'F10' && event.shiftKey && !event.ctrlKey && !event.altKey && !event.metaKey);
    const selected = this.gutter.selectedId;
    if (!menuKey || selected === null) return false;
    if (event.type === 'keydown') {
      // Not the terminal's own context menu as well.
      event.preventDefault();
      const box = (this.gutter.elementOf(selected) ?? this.element).getBoundingClientRect();
      this.options.onCommandMenu(selected, box.right, box.bottom);
    }
    return true;
  }

  private applyInputState(): void {
    const readOnly = this.exited || this.offline || this.readOnly;
    this.terminal.options.disableStdin = readOnly;
    this.terminal.options.cursorBlink = !readOnly;
  }

  findNext(term: string): boolean {
    return term !== '' && this.searchAddon.findNext(term, { decorations: SEARCH_DECORATIONS });
  }

  findPrevious(term: string): boolean {
    return term !== '' && this.searchAddon.findPrevious(term, { decorations: SEARCH_DECORATIONS });
  }

  clearSearch(): void {
    this.searchAddon.clearDecorations();
  }

  /** The buffer as text, trailing blanks trimmed, for tests and diagnostics. */
  text(): string {
    const buffer = this.terminal.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < buffer.length; y++) lines.push(buffer.getLine(y)?.translateToString(true) ?? '');
    while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    return lines.join('\n');
  }

  dispose(): void {
    this.disposables.dispose();
    this.element.remove();
  }

  private loadWebgl(): void {
    if (!canUseWebgl()) return;
    try {
      const webgl = new WebglAddon();
      // A lost GPU context (driver reset, too many contexts) falls back to the DOM renderer.
      webgl.onContextLoss(() => this.dropWebgl());
      this.terminal.loadAddon(webgl);
      this.webgl = webgl;
      this.disposables.add(() => this.dropWebgl());
    } catch {
      this.webgl = null;
    }
  }

  private dropWebgl(): void {
    const webgl = this.webgl;
    this.webgl = null;
    webgl?.dispose();
  }
}

const SEARCH_DECORATIONS = {
  matchBackground: '#3b4d63',
  matchOverviewRuler: '#6cb6ff',
  activeMatchBackground: '#b58900',
  activeMatchColorOverviewRuler: '#e6c07b',
};

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, Math.floor(value)));
}

function disposeOf(disposable: { dispose(): void }): () => void {
  return () => disposable.dispose();
}
