// Bounds on the counts of the control sequences xterm.js carries out once per count, for every terminal that parses a session's output.
import { DisposableStore, type Disposable } from './disposable.js';
import { MAX_COLS, MAX_ROWS } from './session-limits.js';

/** What of an xterm.js terminal, the browser's or the headless one, this needs (its parser is proposed API: `allowProposedApi`). */
export interface CountedTerminal {
  readonly parser: {
    registerCsiHandler(id: { final: string }, callback: (params: (number | number[])[]) => boolean): { dispose(): void };
  };
}

/**
 * The most each count may be. xterm.js scrolls (SU `S`, SD `T`), inserts and
 * deletes lines (IL `L`, DL `M`) one line per count, moves across tab stops
 * (CHT `I`, CBT `Z`) one per count, and repeats a character (REP `b`) as many
 * times as asked: so `ESC [ 10000000 S`, 13 bytes a session's output chooses,
 * kept a terminal busy for 27 s of CPU, and 2147483647 for hours, freezing the
 * core's screen of that session or the panel's whole page. Real terminals
 * clamp these to the screen; up to the largest screen a session may have, the
 * counts below are carried out as they are. By the CSI's final byte, with no
 * private marker or intermediate.
 */
export const COUNT_BOUNDS: ReadonlyMap<string, number> = new Map([
  ['S', MAX_ROWS],
  ['T', MAX_ROWS],
  ['L', MAX_ROWS],
  ['M', MAX_ROWS],
  ['I', MAX_COLS],
  ['Z', MAX_COLS],
  ['b', MAX_COLS],
]);

/**
 * Drops any of the sequences above whose count is past its bound: past the
 * largest screen, a count means nothing a program would ask for (a scroll of
 * more lines than any screen has, a character repeated over more than a
 * line), so the sequence is taken as handled and nothing is done.
 */
export function boundTerminalCounts(terminal: CountedTerminal): Disposable {
  const handlers = new DisposableStore();
  for (const [final, most] of COUNT_BOUNDS) {
    handlers.add(
      terminal.parser.registerCsiHandler({ final }, (params) => {
        // With sub-parameters (`2147483647:1`) the count comes first in an array of its own.
        const first = params[0];
        const count = Array.isArray(first) ? first[0] : first;
        return count !== undefined && count > most;
      }),
    );
  }
  return handlers;
}
