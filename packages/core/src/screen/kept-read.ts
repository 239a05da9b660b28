// A session screen's last snapshot-like read, answered again while nothing has changed the screen.
import type { ScreenReader } from './mirror-screen.js';

/**
 * The last read of a reader that reads the scrollback, with the log end it reflects: answered again,
 * without asking the screen, while the log has not grown and the screen was neither resized nor
 * restarted since (an idle session re-attached: `ptydeck attach` waited for the screen worker's round
 * trip, bench figure 12). `changed()` is called by whatever changes the screen but the log; a read that
 * started before such a change is not kept.
 */
export class KeptRead {
  private kept: { reader: ScreenReader<unknown>; through: number; version: number; value: unknown } | undefined;
  private version = 0;

  /** The kept answer of `reader` as of the log's end `through`, if there is one. */
  take<T>(reader: ScreenReader<T>, through: number): Promise<T> | undefined {
    const kept = this.kept;
    return kept && kept.reader === reader && kept.through === through && kept.version === this.version ? Promise.resolve(kept.value as T) : undefined;
  }

  /** What to pass to keep() once the read started now answers. */
  get stamp(): number {
    return this.version;
  }

  /** Keeps `value`, read as of `through`, if nothing changed the screen since `stamp`. */
  keep<T>(reader: ScreenReader<T>, through: number, stamp: number, value: T): void {
    if (reader.history && stamp === this.version) this.kept = { reader, through, version: stamp, value };
  }

  /** Output grew to `end`: a read of less is stale, and not held for the session's life. */
  grew(end: number): void {
    if (this.kept && end > this.kept.through) this.kept = undefined;
  }

  /** The screen was resized or restarted, or is gone. */
  changed(): void {
    this.version++;
    this.kept = undefined;
  }
}
