// Waits for processes that are not our children to go, waking early on the session's exit.
const REAP_POLL_MS = 20;

/**
 * Waits until `done()` holds or `timeoutMs` passes. `exited` wakes it as soon
 * as the session's process exits; processes left in the session can only be
 * observed by polling, since they are not our children.
 */
export async function waitFor(done: () => boolean, exited: Promise<void>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
  });
  await Promise.race([exited, expired]);
  try {
    while (!done()) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) return false;
      await new Promise((resolve) => setTimeout(resolve, Math.min(REAP_POLL_MS, remaining)));
    }
    return true;
  } finally {
    clearTimeout(timer);
  }
}
