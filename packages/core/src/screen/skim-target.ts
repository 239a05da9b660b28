/**
 * How far a screen far behind its log skips ahead: instead of drawing
 * everything a flood wrote, a read parses at most a bounded tail of it and
 * skims the rest (applying only mode changes, see modeChanges), keeping
 * enough for the history a resync restores, or for the visible screen alone
 * when that is all the waiting reads want. Pure but for the probe of the log
 * that finds a line start.
 */

/**
 * A screen this far behind its log skims ahead to the last SKIM_KEEP bytes
 * instead of drawing everything before them: a read then parses at most
 * SKIM_AFTER, however long a flood ran: during a flood the worker's thread
 * waits for a CPU as long as it runs, so a read's parse takes several times
 * its CPU time, which grows with what it parses. SKIM_KEEP still holds the
 * MIRROR_SCROLLBACK lines a resync restores for output colored word by word
 * (about 250 bytes a line), and four times that of plain text.
 */
const SKIM_AFTER = 512 * 1024;
const SKIM_KEEP = 256 * 1024;
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
 * Where to skim to when more than SKIM_AFTER behind: the first line start
 * in the last SKIM_KEEP bytes (an escape sequence or a character never
 * spans a line feed), or a pending resize before that, which is applied
 * where it happened before skimming on. Undefined: parse, do not skim.
 * `probe` reads the log from a cursor; it throws once the session is gone.
 */
export function skimTarget(at: SkimPosition, probe: (cursor: number, maxBytes: number) => { cursor: number; data: Uint8Array }): number | undefined {
  const { parsed, end, nextResize, screenOnly } = at;
  const keep = screenOnly ? Math.max(SCREEN_SKIM_KEEP_MIN, at.cols * at.rows * SCREEN_BYTES_PER_CELL) : SKIM_KEEP;
  if (end - parsed <= (screenOnly ? keep * SCREEN_SKIM_FACTOR : SKIM_AFTER)) return undefined;
  const keepFrom = end - keep;
  if (nextResize !== undefined && nextResize <= keepFrom) return nextResize > parsed ? nextResize : undefined;
  try {
    const slice = probe(keepFrom, 4096);
    const lineFeed = slice.data.indexOf(0x0a);
    return lineFeed < 0 ? slice.cursor : slice.cursor + lineFeed + 1;
  } catch {
    return undefined; // removed meanwhile
  }
}
