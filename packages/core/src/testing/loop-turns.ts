// The event loop's turns as tests see them: what was handed on per turn, and a thread held busy.
/**
 * Counts what a test hands on between turns of the event loop (setImmediate
 * ticks), or, given `count`, how much a counter the code under test keeps
 * grew: the most in any one turn, and how many turns passed. Stop it once
 * the work is done; the turn in progress is counted then.
 */
export function turnMeter(count?: () => number): { add(amount: number): void; stop(): { mostPerTurn: number; turns: number } } {
  let sinceTick = 0;
  let mostPerTurn = 0;
  let turns = 0;
  let ticking = true;
  let last = count?.() ?? 0;
  const take = () => {
    if (!count) return;
    const now = count();
    sinceTick += now - last;
    last = now;
  };
  const tick = () => {
    take();
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
      take();
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
