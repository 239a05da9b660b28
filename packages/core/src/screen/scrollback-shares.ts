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
  /** The share the live screens were last given. */
  private applied: number | undefined;

  constructor(
    /** Lines of history all live screens keep together. */
    readonly totalLines: number,
  ) {}

  /**
   * The lines each live screen may keep now: the total over their count,
   * rounded down to one of eight steps an octave (an eighth less at most).
   * Each change of it resizes every live screen's buffers (xterm.js makes a
   * new line list on a scrollback change): unrounded, it moved as each of a
   * hundred flooding sessions' screens came or froze, 5000 resizes in bursts
   * of a hundred, each burst tens of ms of the screen worker that a screen
   * read waited behind (bench figure 5); rounded, a fifth of that.
   */
  get share(): number {
    const even = Math.floor(this.totalLines / Math.max(1, this.screens.size));
    const step = 2 ** Math.max(0, Math.floor(Math.log2(Math.max(1, even))) - 3);
    return Math.floor(even / step) * step;
  }

  /** A screen with a terminal: it gets its share now and whenever the count changes. Returns its leave(). */
  join(screen: SharedScrollback): () => void {
    this.screens.add(screen);
    // The others keep theirs when the share did not move; the newcomer gets it either way.
    if (!this.apply()) screen.limitScrollback(this.share);
    return () => {
      if (this.screens.delete(screen)) this.apply();
    };
  }

  /** Gives every live screen the share when it moved; false when it had not. */
  private apply(): boolean {
    const share = this.share;
    if (share === this.applied) return false;
    this.applied = share;
    for (const screen of this.screens) screen.limitScrollback(share);
    return true;
  }
}
