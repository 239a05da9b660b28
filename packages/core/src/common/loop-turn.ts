/**
 * Resolves once the event loop has gone round: its timers and its I/O (a keystroke, a panel's frame, a
 * screen read's answer) have had their turn. One `setImmediate` does not promise that: queued from a timer
 * or an I/O callback it runs in the same round's check phase, right after the work before it, so two
 * slices of work held the loop as one (a probe: 10 ms of work, one setImmediate, 10 ms more, from an I/O
 * callback: the loop's delay monitor saw 23 to 28 ms; with two hops 15). Queued from the check phase, the
 * second immediate runs a round later.
 */
export function nextLoopTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}
