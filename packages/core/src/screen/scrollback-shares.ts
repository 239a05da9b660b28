/**
 * Lines of history shared by the screens of one thread: each screen keeps
 * its own scrollback, or its share of the total when more screens are live
 * than the total allows. Why: a line of an 80-column xterm.js buffer costs
 * about 1.3 KiB (a Uint32Array of 12 bytes a cell, and the objects around
 * it), so a hundred flooding sessions' thousand lines each were 130 MiB of
 * the core's memory (the bench README's "Memory"). Like the logs' global
 * cap, a bound for all sessions together; the share is by count, not by who
 * holds the most, so it changes only when a screen comes or goes (a frozen
 * screen, which keeps a snapshot instead of a terminal, counts for nothing).
 */
export interface SharedScrollback {
  /** Keep at most this many lines of history from now on (fewer than its own scrollback: trimmed at once, oldest first). */
  limitScrollback(lines: number): void;
}

export class ScrollbackShares {
  private readonly screens = new Set<SharedScrollback>();

  constructor(
    /** Lines of history all live screens keep together. */
    readonly totalLines: number,
  ) {}

  /** The lines each live screen may keep now. */
  get share(): number {
    return Math.floor(this.totalLines / Math.max(1, this.screens.size));
  }

  /** A screen with a terminal: it gets its share now and whenever the count changes. Returns its leave(). */
  join(screen: SharedScrollback): () => void {
    this.screens.add(screen);
    this.apply();
    return () => {
      if (this.screens.delete(screen)) this.apply();
    };
  }

  private apply(): void {
    const share = this.share;
    for (const screen of this.screens) screen.limitScrollback(share);
  }
}
