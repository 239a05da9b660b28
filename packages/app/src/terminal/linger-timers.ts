/**
 * The timers behind lingering tabs: a tab whose session exited stays a while
 * (lingerMs from when it started lingering), then the reducer decides what
 * its expiry means. One timer per lingering tab, kept in step with the deck.
 */
import { lingeringTabs } from './deck-reducer.js';
import type { DeckState } from './deck-state.js';

export class LingerTimers {
  private readonly timers = new Map<string, { since: number; handle: ReturnType<typeof setTimeout> }>();

  constructor(
    private readonly lingerMs: number,
    /** The tab's linger is over: dispatches linger-expired. */
    private readonly expired: (id: string) => void,
  ) {}

  /** A timer per lingering tab, deadline = linger start + lingerMs; the reducer decides what expiry means. */
  sync(state: DeckState): void {
    const lingering = new Map(lingeringTabs(state).map((entry) => [entry.id, entry.since]));
    for (const [id, timer] of this.timers) {
      if (lingering.get(id) === timer.since) continue;
      clearTimeout(timer.handle);
      this.timers.delete(id);
    }
    for (const [id, since] of lingering) {
      if (this.timers.has(id)) continue;
      const start = since > 0 ? since : Date.now();
      const handle = setTimeout(() => {
        this.timers.delete(id);
        this.expired(id);
      }, Math.max(0, start + this.lingerMs - Date.now()));
      this.timers.set(id, { since, handle });
    }
  }

  dispose(): void {
    for (const timer of this.timers.values()) clearTimeout(timer.handle);
    this.timers.clear();
  }
}
