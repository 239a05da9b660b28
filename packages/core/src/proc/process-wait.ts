// Waits for processes that are not our children to go, and the one escalation (ask, then SIGKILL) every ending uses.
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

/** After SIGKILL a process dies as soon as the kernel schedules it; this only bounds a wait on a stuck (D state) one. */
const SIGKILL_WAIT_MS = 5000;
const settled = Promise.resolve();

export interface Escalation {
  /** The polite ask: SIGHUP for a terminal's processes (a closed terminal sends it), SIGTERM for others. */
  signal: NodeJS.Signals;
  /** How long the ask may take before SIGKILL. */
  graceMs: number;
  /** SIGKILL at once, without the ask. */
  force?: boolean;
  /** Settles when the session's leader exits: wakes the waits at once instead of at their next poll. */
  exited?: Promise<void>;
}

/**
 * How every ending of processes goes (a session's POSIX session, a terminal's
 * groups, a session's detached jobs): `signal` and SIGCONT (a stopped job
 * sees its signal only once it runs), SIGKILL for what is left after
 * `graceMs`, then a bounded wait. `send` signals what is still to end; resolves
 * whether `gone()` holds at the end.
 */
export async function escalate(send: (signal: NodeJS.Signals) => void, gone: () => boolean, options: Escalation): Promise<boolean> {
  const exited = options.exited ?? settled;
  if (gone()) return true;
  if (!options.force) {
    send(options.signal);
    send('SIGCONT');
    if (await waitFor(gone, exited, options.graceMs)) return true;
  }
  send('SIGKILL');
  return waitFor(gone, exited, SIGKILL_WAIT_MS);
}
