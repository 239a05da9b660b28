// The event loop's turns as tests see them: what was handed on per turn, and a thread held busy.
/**
 * Counts what a test hands on between turns of the event loop (setImmediate
 * ticks): the most in any one turn, and how many turns passed. Stop it once
 * the work is done; the turn in progress is counted then.
 */
export function turnMeter(): { add(amount: number): void; stop(): { mostPerTurn: number; turns: number } } {
  let sinceTick = 0;
  let mostPerTurn = 0;
  let turns = 0;
  let ticking = true;
  const tick = () => {
    turns++;
    mostPerTurn = Math.max(mostPerTurn, sinceTick);
    sinceTick = 0;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  return {
    add: (amount) => {
      sinceTick += amount;
    },
    stop: () => {
      ticking = false;
      return { mostPerTurn: Math.max(mostPerTurn, sinceTick), turns };
    },
  };
}

/** Holds the thread for `ms`, as a main thread with more to do per chunk, or a synchronous spawn, does. */
export function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy
  }
}
