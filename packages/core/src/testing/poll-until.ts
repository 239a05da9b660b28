// Polling, for tests whose condition has no event to wait on.
/** Waits for `condition` by polling: for state that changes without an event to listen to (the process table). */
export async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000, pollMs = 25): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
