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
