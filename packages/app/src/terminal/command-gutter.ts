// A terminal's command marks (issue 36): one gutter mark per command the shell ran, placed where its output
// starts, coloured by how it ended; the jumps between them and each command's output text.
import type { IDecoration, IMarker, Terminal } from '@xterm/xterm';
import { commandFailed, type CommandRecord } from '@ptydeck/contract';
import { commandLineRow, jumpTarget, textBetween, type JumpDirection } from './command-marks.js';

export type MarkState = 'running' | 'success' | 'failed';

/** A place in the buffer that moves with it (a marker) and a column. */
interface Place {
  marker: IMarker;
  x: number;
}

interface Entry {
  record: CommandRecord;
  /** The command line's first row: the mark's row and where a jump lands. */
  line: IMarker | null;
  output: Place | null;
  end: Place | null;
  endWatched: boolean;
  decoration: IDecoration | undefined;
  element: HTMLElement | null;
}

export interface CommandGutterOptions {
  /** Calls back once the terminal parsed exactly the output before `cursor` (TerminalFeed.whenParsed). */
  whenParsed(cursor: number, reached: (parsed: boolean) => void): boolean;
  /** A mark was clicked: its command's menu, at the mark. */
  onMarkClick(id: string, anchor: HTMLElement): void;
}

const RULER_COLORS: Record<MarkState, string> = { running: '#6cb6ff', success: '#8fd18b', failed: '#ef6b73' };

export function markState(record: CommandRecord): MarkState {
  if (record.status === 'running') return 'running';
  return commandFailed(record) ? 'failed' : 'success';
}

/**
 * The marks of one terminal. A record's output cursors become buffer places
 * as the terminal parses the output (the feed cuts its writes there), so a
 * command gets a mark only when this terminal parsed its start: one that
 * began before the screen was restored, or whose rows left the scrollback,
 * has none.
 */
export class CommandGutter {
  private readonly entries = new Map<string, Entry>();
  /** The command the last jump went to; jumps go on from it until the developer types. */
  private selected: string | null = null;

  constructor(
    private readonly terminal: Terminal,
    private readonly options: CommandGutterOptions,
  ) {}

  /** A record as it is now (started, or ended). */
  update(record: CommandRecord): void {
    const known = this.entries.get(record.id);
    if (known) {
      known.record = record;
      this.watchEnd(known);
      this.paint(known);
      return;
    }
    const entry: Entry = { record, line: null, output: null, end: null, endWatched: false, decoration: undefined, element: null };
    const waiting = this.options.whenParsed(record.output.start, (parsed) => {
      if (this.entries.get(record.id) !== entry) return;
      if (parsed) this.placeStart(entry);
      else this.drop(entry);
    });
    if (!waiting) return;
    this.entries.set(record.id, entry);
    this.watchEnd(entry);
  }

  /** Marks in buffer order, for tests and diagnostics. */
  marks(): { id: string; line: number; state: MarkState }[] {
    const marks: { id: string; line: number; state: MarkState }[] = [];
    for (const [id, entry] of this.entries) if (entry.line && entry.line.line >= 0) marks.push({ id, line: entry.line.line, state: markState(entry.record) });
    return marks.sort((a, b) => a.line - b.line);
  }

  record(id: string): CommandRecord | undefined {
    return this.entries.get(id)?.record;
  }

  /** The command a jump selected, while nothing was typed since. */
  get selectedId(): string | null {
    return this.selected !== null && this.entries.get(this.selected)?.line ? this.selected : null;
  }

  /** The mark's element while it is drawn (in view). */
  elementOf(id: string): HTMLElement | null {
    const element = this.entries.get(id)?.element ?? null;
    return element?.isConnected ? element : null;
  }

  deselect(): void {
    this.selected = null;
  }

  /**
   * Scrolls the previous or next command's line to the top (VS Code's
   * Ctrl+Up/Down), going on from the last one jumped to, else from the
   * cursor. Past the last command, back to the bottom.
   */
  jump(direction: JumpDirection): void {
    const buffer = this.terminal.buffer.active;
    const current = this.selectedId === null ? null : this.entries.get(this.selectedId)!.line!.line;
    const from = current ?? buffer.baseY + buffer.cursorY;
    const marks = this.marks();
    const target = jumpTarget(marks.map((mark) => mark.line), from, direction);
    if (target === null) {
      if (direction === 'next') {
        this.selected = null;
        this.terminal.scrollToBottom();
      }
      return;
    }
    this.select(marks.find((mark) => mark.line === target)!.id);
  }

  /** Scrolls a command's line to the top; false when it has no mark here. */
  reveal(id: string): boolean {
    if (!this.entries.get(id)?.line) return false;
    this.select(id);
    return true;
  }

  /**
   * The command's output as the terminal shows it (wrapped rows joined), up
   * to where it ended or, while it runs, up to the cursor; null when its
   * start is not in this terminal.
   */
  outputOf(id: string): string | null {
    const entry = this.entries.get(id);
    if (!entry?.output || entry.output.marker.line < 0) return null;
    const buffer = this.terminal.buffer.normal;
    const start = { y: entry.output.marker.line, x: entry.output.x };
    let end: { y: number; x: number };
    if (entry.end && entry.end.marker.line >= 0) end = { y: entry.end.marker.line, x: entry.end.x };
    else if (entry.record.status === 'running') end = { y: buffer.baseY + buffer.cursorY, x: buffer.cursorX };
    else return null;
    return textBetween((y) => buffer.getLine(y), start, end);
  }

  /** The screen was reset for a restored one: every place on the old buffer is void. */
  reset(): void {
    for (const entry of [...this.entries.values()]) if (entry.line) this.drop(entry);
  }

  dispose(): void {
    for (const entry of [...this.entries.values()]) this.drop(entry);
  }

  private select(id: string): void {
    this.selected = id;
    this.terminal.scrollToLine(this.entries.get(id)!.line!.line);
    for (const entry of this.entries.values()) if (entry.element) entry.element.classList.toggle('selected', entry.record.id === id);
  }

  private watchEnd(entry: Entry): void {
    const end = entry.record.output.end;
    if (end === null || entry.endWatched) return;
    entry.endWatched = true;
    this.options.whenParsed(end, (parsed) => {
      if (parsed && this.entries.get(entry.record.id) === entry && entry.output) entry.end = this.placeHere(0);
    });
  }

  private placeHere(offset: number): Place {
    const buffer = this.terminal.buffer.active;
    return { marker: this.terminal.registerMarker(offset), x: buffer.cursorX };
  }

  private placeStart(entry: Entry): void {
    const buffer = this.terminal.buffer.active;
    // A full-screen program's screen has no scrollback to mark.
    if (buffer.type !== 'normal') return this.drop(entry);
    const here = { y: buffer.baseY + buffer.cursorY, x: buffer.cursorX };
    const row = commandLineRow((y) => buffer.getLine(y), here);
    entry.output = this.placeHere(0);
    entry.line = this.terminal.registerMarker(row - here.y);
    // Trimmed off the top of the scrollback: the mark goes with its rows.
    entry.line.onDispose(() => this.drop(entry));
    const state = markState(entry.record);
    entry.decoration = this.terminal.registerDecoration({ marker: entry.line, overviewRulerOptions: { color: RULER_COLORS[state], position: 'left' } });
    entry.decoration?.onRender((element) => {
      if (entry.element !== element) this.adopt(entry, element);
      this.paint(entry);
    });
  }

  /** Makes a decoration's element the command's clickable mark. */
  private adopt(entry: Entry, element: HTMLElement): void {
    entry.element = element;
    element.classList.add('command-mark');
    element.setAttribute('role', 'button');
    element.dataset.commandId = entry.record.id;
    // Not the terminal's selection: the mark is a button.
    element.addEventListener('mousedown', (event) => {
      event.preventDefault();
      event.stopPropagation();
    });
    element.addEventListener('click', (event) => {
      event.stopPropagation();
      this.options.onMarkClick(entry.record.id, element);
    });
  }

  private paint(entry: Entry): void {
    const state = markState(entry.record);
    if (entry.decoration?.options.overviewRulerOptions) entry.decoration.options.overviewRulerOptions = { color: RULER_COLORS[state], position: 'left' };
    const element = entry.element;
    if (!element) return;
    element.dataset.state = state;
    element.classList.toggle('selected', this.selected === entry.record.id);
    const { record } = entry;
    const how = state === 'running' ? 'running' : state === 'success' ? 'succeeded' : `failed (${record.signal ?? (record.status === 'lost' ? 'lost' : `exit ${record.exitCode}`)})`;
    const label = `${record.command ?? 'Command'}: ${how}`;
    element.title = label;
    element.setAttribute('aria-label', label);
  }

  private drop(entry: Entry): void {
    if (this.entries.get(entry.record.id) === entry) this.entries.delete(entry.record.id);
    if (this.selected === entry.record.id) this.selected = null;
    entry.decoration?.dispose();
    entry.line?.dispose();
    entry.output?.marker.dispose();
    entry.end?.marker.dispose();
  }
}
