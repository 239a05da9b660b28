/**
 * Calls `onIdle` once `isIdle` has answered true for `idleMs` without a break.
 * It asks rather than listens: idleness is the absence of sessions, chats and
 * clients of four kinds, and one look every few seconds costs less than four
 * subscriptions kept in step. Returns a function that stops watching.
 */
export function watchIdle(options: { idleMs: number; isIdle: () => boolean; onIdle: () => void }): () => void {
  const { idleMs, isIdle, onIdle } = options;
  // Often enough that the exit comes within a tenth of the period (at most 5 s) of its end.
  const every = Math.min(5000, Math.max(50, Math.floor(idleMs / 10)));
  let idleSince: number | undefined;
  const timer = setInterval(() => {
    if (!isIdle()) {
      idleSince = undefined;
      return;
    }
    idleSince ??= Date.now();
    if (Date.now() - idleSince >= idleMs) {
      clearInterval(timer);
      onIdle();
    }
  }, every);
  return () => clearInterval(timer);
}
