// A headless xterm.js screen fed with a session's bytes, serialized for viewers and read as text for models.
import { createRequire } from 'node:module';
import type HeadlessModule from '@xterm/headless';
import type SerializeModule from '@xterm/addon-serialize';
import { boundTerminalCounts, type ScreenMark } from '@ptydeck/contract';
import { CommandPlaces } from './command-places.js';
import type { SerializedScreen, WriteMarks } from './mirror-screen.js';
import { modeChanges } from './mode-changes.js';
import type { ScrollbackShares, SharedScrollback } from './scrollback-shares.js';

type Terminal = InstanceType<typeof HeadlessModule.Terminal>;
type SerializeAddon = InstanceType<typeof SerializeModule.SerializeAddon>;

let xterm: { Terminal: typeof HeadlessModule.Terminal; SerializeAddon: typeof SerializeModule.SerializeAddon } | undefined;

/**
 * xterm-headless and its serializer, required on the first mirror rather than
 * imported at start: loading them is a sizeable part of a cold start (the
 * bench README says how much), and a server that no viewer or model asks for
 * a screen never needs them. Both are CommonJS, so a synchronous require keeps
 * the constructor synchronous.
 */
export function loadXterm(): NonNullable<typeof xterm> {
  if (!xterm) {
    const require = createRequire(import.meta.url);
    const { Terminal } = require('@xterm/headless') as typeof HeadlessModule;
    const { SerializeAddon } = require('@xterm/addon-serialize') as typeof SerializeModule;
    xterm = { Terminal, SerializeAddon };
  }
  return xterm;
}

export interface ScreenMirrorOptions {
  cols: number;
  rows: number;
  /** Lines of history kept above the screen. Default 1000. */
  scrollback?: number;
  /**
   * Parse each write before write() returns, not in xterm.js's time slices:
   * for the screen worker, whose thread has nothing else to do. xterm.js
   * starts every write on a timer and yields every 12 ms so a page stays
   * responsive; in the worker that only added a timer wake per write and let
   * other screens' writes interleave with a read's, so during a flood a write
   * came back later than one parsed at once. Default false: on the main
   * thread a long parse must yield.
   */
  synchronous?: boolean;
  /** History shared with the thread's other screens: this one keeps at most its share (see ScrollbackShares). */
  shares?: ScrollbackShares;
}

/**
 * Longest piece of output handed to xterm.js at once. Its parser decodes each
 * write into a buffer of code points that grows to the longest write so far
 * (up to 128 Ki code points, 512 KiB) and never shrinks: with a screen per
 * session fed slices of 64 KiB to 1 MiB, that was half a megabyte per screen,
 * 50 MiB for figure 5's hundred. 4096 is the buffer's starting length, so it
 * never grows; parsing speed is the same (the bench README's "Memory").
 */
const PARSE_PIECE = 4096;

function piece(data: string | Uint8Array, at: number, end = Math.min(data.length, at + PARSE_PIECE)): string | Uint8Array {
  if (at === 0 && end === data.length && data.length <= PARSE_PIECE) return data;
  return typeof data === 'string' ? data.slice(at, end) : data.subarray(at, end);
}

/** xterm.js's own synchronous write, on its core (not in the public typings). */
interface SynchronousCore {
  _core?: { writeSync?: (data: string | Uint8Array) => void };
}

/** A live mirror's terminal, its serializer, and xterm.js's synchronous write when the mirror uses it. */
interface LiveTerminal {
  terminal: Terminal;
  serializer: SerializeAddon;
  /** Where commands' outputs start and end (see write()'s marks). */
  places: CommandPlaces;
  writeSync: ((data: string | Uint8Array) => void) | undefined;
}

/** What a frozen mirror keeps of its terminal: what its reads return. */
interface FrozenScreen {
  /** serialize() with the mirror's whole scrollback. */
  snapshot: string;
  /** The command places in it (CommandPlaces.rows). */
  marks: ScreenMark[];
  text: string;
  altScreen: boolean;
  cursor: { x: number; y: number };
}

/**
 * A headless xterm.js terminal that renders a session's output so its screen
 * can be read as text (for models) or serialized (to repaint a viewer). Feed it
 * the session's bytes in order with write() and its size changes with
 * resize(), in the order they happened; reads reflect what was parsed so far,
 * so await settled() (or write()'s promise) before reading.
 *
 * A mirror whose output has ended can be frozen (freeze()): it keeps what its
 * reads return and lets the terminal go, a tenth of its memory or less (the
 * bench README's "Memory"). Anything else it is asked brings a terminal back,
 * repainted from the snapshot.
 */
export class ScreenMirror implements SharedScrollback {
  private live: LiveTerminal | undefined;
  private frozen: FrozenScreen | undefined;
  private pending: Promise<void> = Promise.resolve();
  /** Writes (and queued resizes) the parser has not reached yet. */
  private unparsed = 0;
  private disposed = false;
  /** The size as of everything queued: the terminal's own lags until the queued resizes are reached. */
  private size: { cols: number; rows: number };
  private readonly scrollback: number;
  /** Lines of history kept now: `scrollback`, or less while the shares allow less. */
  private scrollbackLimit: number;
  /** Leaves the shares: while frozen or once disposed, this screen holds no lines. */
  private leaveShares: (() => void) | undefined;
  /** Set when options.synchronous and this xterm.js has writeSync. */
  private readonly synchronousWrites: boolean;

  constructor(private readonly options: ScreenMirrorOptions) {
    this.size = { cols: options.cols, rows: options.rows };
    this.scrollback = options.scrollback ?? 1000;
    this.scrollbackLimit = this.scrollback;
    this.live = this.open();
    this.synchronousWrites = this.live.writeSync !== undefined;
    this.leaveShares = options.shares?.join(this);
  }

  limitScrollback(lines: number): void {
    this.scrollbackLimit = Math.min(this.scrollback, lines);
    if (this.live && this.live.terminal.options.scrollback !== this.scrollbackLimit) this.live.terminal.options.scrollback = this.scrollbackLimit;
  }

  private open(): LiveTerminal {
    const { Terminal, SerializeAddon } = loadXterm();
    const serializer = new SerializeAddon();
    const terminal = new Terminal({
      cols: this.size.cols,
      rows: this.size.rows,
      scrollback: this.scrollbackLimit,
      allowProposedApi: true,
      // writeSync warns once through xterm.js's log that it is meant for tests; a mirror has no one to tell.
      ...(this.options.synchronous ? { logLevel: 'off' as const } : {}),
    });
    // A session's output chooses these counts: unbounded, one sequence kept this screen busy for hours. Its handlers go with the terminal.
    boundTerminalCounts(terminal);
    const core = (terminal as unknown as SynchronousCore)._core;
    const writeSync = this.options.synchronous && typeof core?.writeSync === 'function' ? core.writeSync.bind(core) : undefined;
    // The addon is typed against @xterm/xterm's Terminal; the headless one has the same addon surface.
    terminal.loadAddon(serializer as unknown as Parameters<Terminal['loadAddon']>[0]);
    return { terminal, serializer, writeSync, places: new CommandPlaces(terminal, 2 * (this.scrollback + this.size.rows)) };
  }

  /** The live terminal; a frozen mirror's comes back, repainted from its snapshot. */
  private terminal(): LiveTerminal {
    if (this.live) return this.live;
    if (!this.frozen) throw new Error('the screen mirror was disposed');
    const { snapshot, marks } = this.frozen!;
    this.frozen = undefined;
    const live = this.open();
    this.live = live;
    this.leaveShares = this.options.shares?.join(this);
    this.pending = this.queue(snapshot, () => live.places.restore(marks));
    return live;
  }

  /**
   * Keeps only what reads return (the snapshot with the whole scrollback, the
   * text, the cursor) and lets the terminal go: for a session whose output
   * ended, so nothing more is written. Not while a write is still being
   * parsed (a mirror on the main thread): the caller asks again later.
   */
  freeze(): void {
    if (this.disposed || !this.live || this.unparsed > 0) return;
    const snapshot = this.serialize({ scrollback: this.scrollback });
    // The serializer builds the string a piece at a time, which V8 keeps as a rope: 2.2 MiB for the
    // 80 KiB of a thousand plain lines. Reading a character makes V8 flatten it into one string.
    snapshot.charCodeAt(0);
    this.frozen = { snapshot, marks: this.live.places.rows(this.scrollback), text: this.screenText(), altScreen: this.isAltScreen, cursor: this.cursorPosition() };
    this.release();
  }

  /** Whether the mirror is frozen (see freeze()). */
  get isFrozen(): boolean {
    return this.frozen !== undefined;
  }

  /** Columns once everything queued so far is applied (the size last passed to resize()). */
  get cols(): number {
    return this.size.cols;
  }

  /** Rows once everything queued so far is applied. */
  get rows(): number {
    return this.size.rows;
  }

  /** True while a full-screen program has switched to the alternate screen. */
  get isAltScreen(): boolean {
    return this.frozen ? this.frozen.altScreen : this.terminal().terminal.buffer.active.type === 'alternate';
  }

  /**
   * Parses output; resolves once these bytes are reflected in the screen.
   * `marks`: cursors (the log's, `data` starting at `marks.from`) where the
   * screen notes where it stands, parsed up to exactly there (the places a
   * resync's marks read, see CommandPlaces).
   */
  write(data: string | Uint8Array, marks?: WriteMarks): Promise<void> {
    if (this.disposed) return Promise.resolve();
    const { places } = this.terminal();
    if (!marks || marks.cursors.length === 0) {
      this.pending = this.queue(data, () => {});
      return this.pending;
    }
    const parts: Promise<void>[] = [];
    let offset = 0;
    for (const cursor of marks.cursors) {
      const cut = cursor - marks.from;
      if (cut < offset || cut > data.length) continue;
      if (cut > offset) parts.push(this.queue(piece(data, offset, cut), () => {}));
      offset = cut;
      // An empty write's callback runs once everything before it is parsed, before anything after it.
      parts.push(this.queue('', () => places.place(cursor)));
    }
    if (offset < data.length) parts.push(this.queue(piece(data, offset, data.length), () => {}));
    this.pending = Promise.all(parts).then(() => undefined);
    return this.pending;
  }

  /**
   * Passes over output without drawing it: only its mode changes (see
   * modeChanges) are applied, so what is written next is parsed in the state
   * the skipped output left.
   */
  skim(data: Uint8Array): Promise<void> {
    return this.write(modeChanges(data));
  }

  /** Resolves once everything written (and resized) so far has been applied. */
  settled(): Promise<void> {
    return this.pending;
  }

  /**
   * Resizes once everything written before this call is parsed. xterm.js
   * parses writes later, in order, while its resize() is immediate: applied at
   * once, output queued before it would be laid out at the new size. The
   * callback of an empty write runs when the parser reaches it, before any
   * later write is parsed, so the resize lands exactly between the two. With
   * nothing left to parse it applies at once, so a read right after it (a
   * snapshot taken where the session was resized) sees the new size.
   */
  resize(cols: number, rows: number): void {
    if (this.disposed || (cols === this.size.cols && rows === this.size.rows && this.frozen)) return;
    const { terminal } = this.terminal();
    this.size = { cols, rows };
    if (this.unparsed === 0) {
      terminal.resize(cols, rows);
      return;
    }
    this.pending = this.queue('', () => {
      if (!this.disposed) this.live?.terminal.resize(cols, rows);
    });
  }

  /** The visible screen as plain text, trailing blanks trimmed: what a person would see. */
  screenText(): string {
    if (this.frozen) return this.frozen.text;
    const { terminal } = this.terminal();
    const buffer = terminal.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < terminal.rows; y++) {
      lines.push((buffer.getLine(buffer.baseY + y)?.translateToString(true) ?? '').trimEnd());
    }
    while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    return lines.join('\n');
  }

  /** Cursor position on the visible screen (0-based). */
  cursorPosition(): { x: number; y: number } {
    if (this.frozen) return { ...this.frozen.cursor };
    const buffer = this.terminal().terminal.buffer.active;
    return { x: buffer.cursorX, y: buffer.cursorY };
  }

  /**
   * Escape sequences that repaint this screen (and `scrollback` lines of
   * history) into a freshly reset terminal of the same size.
   */
  serialize(options?: { scrollback?: number }): string {
    // A frozen snapshot holds the whole scrollback: asked for as much or more, it is the same string.
    if (this.frozen && (options?.scrollback === undefined || options.scrollback >= this.scrollback)) return this.frozen.snapshot;
    return this.terminal().serializer.serialize(options?.scrollback === undefined ? undefined : { scrollback: options.scrollback });
  }

  /**
   * The MirrorScreen reads (see mirror-screen.ts), which a screen in another
   * thread can only answer later: the same as serialize() and screenText().
   */
  snapshot(scrollback: number): Promise<SerializedScreen> {
    return Promise.resolve(this.serializeWithMarks(scrollback));
  }

  /** serialize() with the command places in it (see write()'s marks). */
  serializeWithMarks(scrollback: number): SerializedScreen {
    if (this.frozen && scrollback >= this.scrollback) return { screen: this.frozen.snapshot, marks: this.frozen.marks };
    const screen = this.serialize({ scrollback });
    return { screen, marks: this.live!.places.rows(scrollback) };
  }

  text(): Promise<{ text: string; altScreen: boolean }> {
    return Promise.resolve({ text: this.screenText(), altScreen: this.isAltScreen });
  }

  /** Whether writes are parsed before write() returns (options.synchronous, where xterm.js allows it). */
  get parsesSynchronously(): boolean {
    return this.synchronousWrites;
  }

  /** Reads here see what is parsed so far: a write must be awaited before a read reflects it. */
  get readsFollowWrites(): boolean {
    return false;
  }

  /** A terminal in this thread is never lost (one in a worker is, when the worker dies). */
  get lost(): boolean {
    return false;
  }

  /** Hands `data` to the parser; `parsed` runs once the parser reaches it (a throw rejects). */
  private queue(data: string | Uint8Array, parsed: () => void): Promise<void> {
    const { terminal, writeSync } = this.live!;
    if (writeSync) {
      try {
        for (let at = 0; at < data.length; at += PARSE_PIECE) writeSync(piece(data, at));
        parsed();
        return Promise.resolve();
      } catch (error) {
        return Promise.reject(error);
      }
    }
    this.unparsed++;
    return new Promise((resolve, reject) => {
      const done = (): void => {
        this.unparsed--;
        try {
          parsed();
          resolve();
        } catch (error) {
          reject(error);
        }
      };
      try {
        // An empty write still reaches the parser, and its callback marks where a resize applies.
        if (data.length === 0) terminal.write(data, done);
        for (let at = 0; at < data.length; at += PARSE_PIECE) terminal.write(piece(data, at), at + PARSE_PIECE >= data.length ? done : undefined);
      } catch (error) {
        // Refused (xterm.js discards writes once too much is pending): the parser will never reach it.
        this.unparsed--;
        reject(error);
      }
    });
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.frozen = undefined;
    this.release();
  }

  private release(): void {
    this.leaveShares?.();
    this.leaveShares = undefined;
    this.live?.serializer.dispose();
    this.live?.terminal.dispose();
    this.live = undefined;
  }
}
