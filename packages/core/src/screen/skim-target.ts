/**
 * How far a screen far behind its log skips ahead: instead of drawing
 * everything a flood wrote, a read parses at most a bounded tail of it and
 * skims the rest (applying only mode changes, see modeChanges), keeping
 * enough for the history a resync restores, or for the visible screen alone
 * when that is all the waiting reads want. Pure but for the probe of the log
 * that finds a line start.
 */
import { MIRROR_SCROLLBACK } from './mirror-screen.js';

/**
 * A screen far behind its log skims ahead to the start of what a resync
 * restores (MIRROR_SCROLLBACK lines of history and the screen) instead of
 * drawing everything before it, once it is more than twice that behind: a
 * read then parses at most twice what it keeps, however long a flood ran:
 * during a flood the worker's thread waits for a CPU as long as it runs, so a
 * read's parse takes several times its CPU time, which grows with what it
 * parses. What it keeps is counted in the log's lines (HISTORY_SCREENS_EXTRA
 * screens more than the resync restores, for output that moves the cursor
 * up to redraw), at least HISTORY_KEEP_MIN and at most SKIM_KEEP bytes: SKIM_KEEP
 * holds the lines for output colored word by word (about 250 bytes a line),
 * and output with few line feeds (a progress bar) keeps that much. Counted
 * in bytes alone, a reload right after a 720 KiB build log (bench figure 6)
 * parsed 256 KiB to 512 KiB, where its thousand lines were 78 KB.
 */
const SKIM_KEEP = 256 * 1024;
const HISTORY_KEEP_MIN = 32 * 1024;
/** Lines kept beyond what a resync restores, in screens (see SKIM_KEEP's note). */
const HISTORY_SCREENS_EXTRA = 1;
/** How much of the log one probe reads while counting lines back from its end. */
const PROBE_BYTES = 16 * 1024;
/**
 * The same for a read that wants only the visible screen (an agent's
 * terminal_read mode "screen"): it keeps enough to draw every cell of the
 * screen in a color of its own (a truecolor escape and a character, about
 * 20 bytes a cell), at least 32 KiB (hundreds of lines), and skims once
 * four times that behind: with the history's limits instead, screen reads
 * during a flood parsed far more than the screen shows and missed the bench's
 * target (the bench README's "Screen reads during a flood").
 */
const SCREEN_SKIM_KEEP_MIN = 32 * 1024;
const SCREEN_BYTES_PER_CELL = 20;
const SCREEN_SKIM_FACTOR = 4;

/** Reads the log from a cursor (a copy of at most maxBytes); throws once the session is gone. */
type LogProbe = (cursor: number, maxBytes: number) => { cursor: number; data: Uint8Array };

/** Where a screen stands against its log when it is about to parse. */
export interface SkimPosition {
  /** Where the next slice starts: one past the last byte parsed, or the oldest byte the log keeps once it trimmed past that. */
  parsed: number;
  /** One past the newest byte in the log. */
  end: number;
  /** Where the next pending resize happened, if any. */
  nextResize: number | undefined;
  /** Every waiting read wants only the visible screen, no history. */
  screenOnly: boolean;
  /** The session's size, which bounds what the visible screen needs. */
  cols: number;
  rows: number;
}

/**
 * Where to skim to: the first line start of what the waiting reads keep (an
 * escape sequence or a character never spans a line feed), or a pending
 * resize before that, which is applied where it happened before skimming on.
 * Undefined: parse, do not skim. `probe` reads the log from a cursor; it
 * throws once the session is gone.
 */
export function skimTarget(at: SkimPosition, probe: LogProbe): number | undefined {
  const { parsed, end, nextResize } = at;
  try {
    const keep = keptTail(at, probe);
    if (keep === undefined) return undefined;
    if (nextResize !== undefined && nextResize <= keep.from) return nextResize > parsed ? nextResize : undefined;
    if (keep.lineStart) return keep.from;
    const slice = probe(keep.from, 4096);
    const lineFeed = slice.data.indexOf(0x0a);
    return lineFeed < 0 ? slice.cursor : slice.cursor + lineFeed + 1;
  } catch {
    return undefined; // removed meanwhile
  }
}

/**
 * Where the part the waiting reads keep begins, and whether that is a line
 * start already; undefined when the screen is not far enough behind to skim.
 */
function keptTail(at: SkimPosition, probe: LogProbe): { from: number; lineStart: boolean } | undefined {
  const { parsed, end } = at;
  if (at.screenOnly) {
    const keep = Math.max(SCREEN_SKIM_KEEP_MIN, at.cols * at.rows * SCREEN_BYTES_PER_CELL);
    return end - parsed > keep * SCREEN_SKIM_FACTOR ? { from: end - keep, lineStart: false } : undefined;
  }
  if (end - parsed <= 2 * HISTORY_KEEP_MIN) return undefined;
  const lines = MIRROR_SCROLLBACK + (1 + HISTORY_SCREENS_EXTRA) * at.rows;
  // Fewer lines than that in the last SKIM_KEEP (or since `parsed`): keep SKIM_KEEP.
  const linesFrom = startOfLastLines(lines, Math.max(parsed, end - SKIM_KEEP), end, probe);
  const keep = linesFrom === undefined ? SKIM_KEEP : Math.max(HISTORY_KEEP_MIN, end - linesFrom);
  if (end - parsed <= 2 * keep) return undefined;
  return { from: end - keep, lineStart: end - keep === linesFrom };
}

/**
 * The start of the last `lines` lines in the log's [from, end): one past the
 * line feed before them, or undefined when there are fewer.
 */
function startOfLastLines(lines: number, from: number, end: number, probe: LogProbe): number | undefined {
  // The last line may be unfinished (a prompt): it counts too, so the line feed wanted is the lines-th from the end.
  let found = 0;
  let to = end;
  while (to > from) {
    const start = Math.max(from, to - PROBE_BYTES);
    const { cursor, data } = probe(start, to - start);
    let at = data.length;
    while (at > 0) {
      const lineFeed = data.lastIndexOf(0x0a, at - 1);
      if (lineFeed < 0) break;
      if (++found === lines) return cursor + lineFeed + 1;
      at = lineFeed;
    }
    if (cursor >= to || cursor <= from) break;
    to = cursor;
  }
  return undefined;
}
