/**
 * What the core counts as a flood, in one place. A flood is output from a
 * writer faster than anyone reads it: it comes in full reads, without a
 * pause. Each part of the core that treats a flood apart from other output
 * says at its use why it does, and how it measures it against FLOOD:
 * - the PTY reads take turns (flood-turns.ts), and the read thread takes a
 *   flooding terminal off the event loop (master-reading.ts, via the turns');
 * - the screens stop parsing it as it arrives (screen/background-pacing.ts);
 * - the panel sends it in coalesced frames (server/viewer-streams.ts).
 */
export const FLOOD = {
  /**
   * A run of output this long without a pause of `quietMs` is a flood: more
   * than a prompt, an echo or a page of a build's log, a fraction of a second
   * of `yes`.
   */
  runBytes: 256 * 1024,
  /** A pause this long ends a run of output. */
  quietMs: 50,
  /**
   * One read at least this large already comes from a writer ahead of its
   * reader: an echo or a prompt is a few bytes, and only a reader falling
   * behind gets full reads (up to 4095 bytes, the line discipline's limit).
   */
  readBytes: 1024,
} as const;

/**
 * Whether a read of `bytes`, `gapMs` after the session's read before it, ends
 * that session's run by itself, with no watch of the loop (loop-watch.ts): a
 * read under FLOOD.readBytes says the writer wrote less than that over the
 * whole gap, since a reader that fell behind (a stall of the main thread
 * included) gets full reads. So a trickle's reads (an echo, a prompt) need
 * not keep the loop watch ticking: it ticked every quietMs / 2 behind every
 * typed key, a timer that fell due between a key's write to the terminal and
 * its echo's read (bench/README.md, "Figure 3's loop ticks").
 */
export function trickleAfterPause(bytes: number, gapMs: number, quietMs: number): boolean {
  return bytes < FLOOD.readBytes && gapMs >= quietMs;
}
