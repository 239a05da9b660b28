// A terminal's command marks (issue 36): one gutter mark per command the shell ran, placed where its output
// starts, coloured by how it ended; the jumps between them and each command's output text.
import type { IDecoration, IMarker, Terminal } from '@xterm/xterm';
import { commandFailed, type CommandRecord, type ScreenMark } from '@ptydeck/contract';
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
  /** The terminal is yet to parse its start (TerminalFeed.whenParsed). */
  waiting: boolean;
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
 * as the terminal parses the output (the feed cuts its writes there), or,
 * for output that came as a restored screen, where the host says they are in
 * it (the resync's marks): a command whose start is in neither, or whose rows
 * left the scrollback, has none.
 */
export class CommandGutter {
  private readonly entries = new Map<string, Entry>();
  /** The command the last jump went to; jumps go on from it until the developer types. */
  private selected: string | null = null;
  /** The last restored screen's places, by log cursor: where commands in it start and end. */
  private restoredPlaces = new Map<number, Place>();
  /** Restored screens on their way (TerminalFeed.restore), not yet parsed. */
  private pendingRestores = 0;

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
    const entry: Entry = { record, line: null, output: null, end: null, endWatched: false, waiting: false, decoration: undefined, element: null };
    this.entries.set(record.id, entry);
    entry.waiting = this.options.whenParsed(record.output.start, (parsed) => {
      if (this.entries.get(record.id) !== entry) return;
      entry.waiting = false;
      // Skipped by a restored screen: placed from its marks once it is parsed (restored()).
      if (parsed) this.placeStart(entry);
    });
    // Its start came before this terminal's output: in the restored screen, or nowhere here.
    if (!entry.waiting && !this.placeRestored(entry) && this.pendingRestores === 0) return this.drop(entry);
    this.watchEnd(entry);
  }

  /** A restored screen is on its way: the marks on the old buffer go (TerminalFeed's RestoreHooks). */
  restoring(): void {
    this.pendingRestores++;
    for (const entry of this.entries.values()) this.unplace(entry);
    for (const place of this.restoredPlaces.values()) place.marker.dispose();
    this.restoredPlaces.clear();
  }

  /**
   * The restored screen is parsed: `marks` (the host's word, so only rows of
   * this buffer count) place the commands that started in it.
   */
  restored(marks: readonly ScreenMark[]): void {
    this.pendingRestores = Math.max(0, this.pendingRestores - 1);
    if (this.pendingRestores > 0) return; // another screen follows: its marks, not these
    const buffer = this.terminal.buffer.active;
    // A full-screen program's screen: the host sends none, and markers would land on its buffer.
    if (buffer.type === 'normal') {
      const here = buffer.baseY + buffer.cursorY;
      for (const mark of marks) {
        if (mark.y >= buffer.length || this.restoredPlaces.has(mark.cursor)) continue;
        const marker = this.terminal.registerMarker(mark.y - here);
        if (!marker) continue;
        const place = { marker, x: Math.min(mark.x, this.terminal.cols) };
        this.restoredPlaces.set(mark.cursor, place);
        marker.onDispose(() => {
          if (this.restoredPlaces.get(mark.cursor) === place) this.restoredPlaces.delete(mark.cursor);
        });
      }
    }
    for (const entry of [...this.entries.values()]) if (!entry.waiting && !entry.line && !this.placeRestored(entry)) this.drop(entry);
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

  dispose(): void {
    for (const entry of [...this.entries.values()]) this.drop(entry);
    for (const place of this.restoredPlaces.values()) place.marker.dispose();
    this.restoredPlaces.clear();
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
    const waiting = this.options.whenParsed(end, (parsed) => {
      if (parsed && this.pendingRestores === 0 && this.entries.get(entry.record.id) === entry && entry.output) entry.end = this.placeHere(0);
    });
    if (!waiting && entry.output) entry.end = this.restoredPlace(end);
  }

  private placeHere(offset: number): Place {
    const buffer = this.terminal.buffer.active;
    return { marker: this.terminal.registerMarker(offset), x: buffer.cursorX };
  }

  private placeStart(entry: Entry): void {
    // Output parsed on a buffer a restored screen is about to replace: restored() places it from the screen's marks.
    if (this.pendingRestores > 0) return;
    const buffer = this.terminal.buffer.active;
    // A full-screen program's screen has no scrollback to mark.
    if (buffer.type !== 'normal') return this.drop(entry);
    entry.output = this.placeHere(0);
    this.decorate(entry);
  }

  /** Places a command whose start the restored screen holds; false when it holds none. */
  private placeRestored(entry: Entry): boolean {
    const output = this.restoredPlace(entry.record.output.start);
    if (!output) return false;
    entry.output = output;
    const end = entry.record.output.end;
    entry.end = end === null ? null : this.restoredPlace(end);
    this.decorate(entry);
    return true;
  }

  /** A place of its own (a command's places go with it) where the restored screen has `cursor`; null when it has not. */
  private restoredPlace(cursor: number): Place | null {
    const place = this.restoredPlaces.get(cursor);
    const buffer = this.terminal.buffer.active;
    if (!place || place.marker.line < 0 || buffer.type !== 'normal') return null;
    const marker = this.terminal.registerMarker(place.marker.line - (buffer.baseY + buffer.cursorY));
    return marker ? { marker, x: place.x } : null;
  }

  /** The mark on the command line of a command whose output start is placed. */
  private decorate(entry: Entry): void {
    const buffer = this.terminal.buffer.active;
    const output = entry.output!;
    const row = commandLineRow((y) => buffer.getLine(y), { y: output.marker.line, x: output.x });
    const line = this.terminal.registerMarker(row - (buffer.baseY + buffer.cursorY));
    entry.line = line;
    // Trimmed off the top of the scrollback: the mark goes with its rows (not when a restore took it).
    line.onDispose(() => {
      if (entry.line === line) this.drop(entry);
    });
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
    this.unplace(entry);
  }

  /** Takes the command's mark and places off the buffer; it stays known, to be placed again. */
  private unplace(entry: Entry): void {
    if (this.selected === entry.record.id) this.selected = null;
    const { decoration, line, output, end } = entry;
    entry.decoration = undefined;
    entry.line = null;
    entry.output = null;
    entry.end = null;
    entry.element = null;
    decoration?.dispose();
    line?.dispose();
    output?.marker.dispose();
    end?.marker.dispose();
  }
}
