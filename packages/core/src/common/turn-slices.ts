/**
 * Work done a slice of `sliceMs` at a time: pause() answers undefined while the slice lasts, and once it is
 * over a promise of `yieldTurn` (the loop's other work, a keystroke or a screen read's answer, runs
 * meanwhile), after which the next slice starts. Undefined rather than a resolved promise so a loop
 * asking at every step costs no microtask while it has time.
 */
export class TurnSlices {
  private end: number;

  constructor(
    private readonly yieldTurn: () => Promise<void>,
    private readonly sliceMs: number,
  ) {
    this.end = performance.now() + sliceMs;
  }

  pause(): Promise<void> | undefined {
    if (performance.now() < this.end) return undefined;
    return this.yieldTurn().then(() => {
      this.end = performance.now() + this.sliceMs;
    });
  }
}
