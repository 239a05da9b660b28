import type { ProgressSource } from './strategy-targets.js';

/**
 * Streams whole lines of a range to `onProgress` as they arrive, while a run
 * or wait is in progress. `range()` gives where the output being followed
 * starts and where it currently ends (null before it starts). It advances by
 * raw bytes up to each line feed, so what it reports never drops or repeats a
 * byte, whatever escape sequences the lines hold. Returns a stop function.
 */
export function streamProgress(
  session: ProgressSource,
  onProgress: ((text: string) => void) | undefined,
  range: () => { start: number; end: number } | null,
): () => void {
  if (!onProgress) return () => undefined;
  let sent: number | null = null;
  return session.onChange(() => {
    const current = range();
    if (!current) return;
    sent ??= current.start;
    const lineEnd = session.view.lineEnd(sent, current.end);
    if (lineEnd <= sent) return;
    const text = session.renderText(sent, lineEnd);
    sent = lineEnd;
    if (text.trim() !== '') onProgress(text);
  });
}
