/**
 * The headless terminal a session's screen parses into, as SessionScreen and
 * the screen service see it (MirrorScreen: a ScreenMirror in this thread or a
 * RemoteScreen in the worker), and what a read takes off it (ScreenReader).
 * Types only, plus the scrollback every mirror is made with.
 */
import type { ScreenMark } from '@ptydeck/contract';

/**
 * Scrollback kept in each mirror; a resync restores this much history. Not
 * 10 000: a resync serializes every line, so ten times the lines cost ten
 * times the CPU and make a message as large as replaying the log, and every
 * line costs memory in every session (the bench README's "Scrollback").
 */
export const MIRROR_SCROLLBACK = 1000;

/**
 * Lines of history the live screens of one thread keep together (see
 * ScrollbackShares): eight screens' full scrollback, so up to eight live
 * sessions each keep all of MIRROR_SCROLLBACK, the default 32 live sessions
 * 240 lines each, and a hundred flooding at once 80 each (more than three
 * screens of 24 rows): 10.5 MiB in all instead of 130 with none shared, or
 * 21 with sixteen screens' worth. A line costs about 1.35 KiB whatever it
 * holds, and this history is a rendering of the log, which keeps the bytes
 * (an agent's reads, a viewer reading from a cursor): only a resync's
 * restored scrollback is shorter (the bench README's "Memory").
 */
export const SHARED_SCROLLBACK_LINES = 8 * MIRROR_SCROLLBACK;

/**
 * Log cursors inside a write where the screen notes where it stands (the
 * starts and ends of commands' outputs), `from` being the cursor of the
 * write's first byte; ascending.
 */
export interface WriteMarks {
  from: number;
  cursors: readonly number[];
}

/** A serialized screen and where the noted cursors are in it (see CommandPlaces). */
export interface SerializedScreen {
  screen: string;
  marks: ScreenMark[];
}

/**
 * A session's headless terminal as a session's screen uses it: a ScreenMirror
 * in this thread, or one in the screen worker (ScreenWorker). Reads are
 * promises because the worker answers later; a read asked for after a write
 * reflects that write, and nothing written after the read.
 */
export interface MirrorScreen {
  /** The size as of everything queued so far. */
  readonly cols: number;
  readonly rows: number;
  /**
   * Resolves once these bytes are parsed; rejects when they could not be
   * (ScreenLostError when the terminal is gone). Notes the place of each of
   * `marks`' cursors as it parses up to it. `background`: nobody waits for
   * it (a quiet session's catch-up): a screen in the worker parses it in
   * pieces and serves other screens' requests between them.
   */
  write(data: Uint8Array, marks?: WriteMarks, background?: boolean): Promise<void>;
  /** Passes over these bytes, applying only their mode changes (see modeChanges); settles as write() does. */
  skim(data: Uint8Array): Promise<void>;
  /** Applies after everything written before it. */
  resize(cols: number, rows: number): void;
  /** Escape sequences that repaint the screen and `scrollback` lines of history into a reset terminal, and the noted places in them. */
  snapshot(scrollback: number): Promise<SerializedScreen>;
  /** The visible screen as text, and whether the alternate screen is on. */
  text(): Promise<{ text: string; altScreen: boolean }>;
  /**
   * The session's output ended and all of it was written: keep only what
   * reads return, not the terminal (ScreenMirror.freeze). Applies after
   * everything written before it; a later write or resize brings a terminal back.
   */
  freeze(): void;
  /** The terminal is gone (its worker died): nothing it parsed is left, a new one must be made and fed again. */
  readonly lost: boolean;
  /**
   * Reads are answered after every write asked for before them, awaited or
   * not (the worker serves a screen's requests in order), so a read can go
   * out with the write it waits for instead of after its answer.
   */
  readonly readsFollowWrites: boolean;
  dispose(): void;
}

/** Reads what a caller wants off a screen, at the log position `cursor` it reflects. */
export interface ScreenReader<T> {
  /** Asked for the moment the screen reflects the log up to `cursor`, before any later output is written to it. */
  read(screen: MirrorScreen, cursor: number): Promise<T>;
  /** What to answer once the session is gone. */
  gone(cursor: number): T;
  /**
   * Whether it reads the scrollback too (a resync's snapshot), so a screen
   * far behind keeps the lines a resync restores (see skimTarget); otherwise it skims closer to the end.
   */
  readonly history: boolean;
}
