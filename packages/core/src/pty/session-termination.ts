/**
 * How a POSIX session's processes are ended, for a PTY session and an ACP
 * agent alike: a first signal and SIGCONT to the whole session, SIGKILL after
 * a grace period for what survives, and the waits in between, which wake on
 * the leader's exit and poll for the processes left (not our children, so
 * only polling sees them go).
 */
import { groupAlive, posixSessionMembers, signalPosixSession } from './process-tree.js';
import type { PtySession } from './pty-session.js';

/** After SIGKILL a process dies as soon as the kernel schedules it; this only bounds a wait on a stuck (D state) one. */
const SIGKILL_WAIT_MS = 5000;
const REAP_POLL_MS = 20;
const settled = Promise.resolve();

export interface EndPosixSessionOptions {
  /** The polite ask: SIGHUP for a terminal's session (a closed terminal sends it), SIGTERM for a process with no terminal. */
  signal: NodeJS.Signals;
  /** How long what was asked may take before SIGKILL. */
  graceMs: number;
  /** Everything is gone. Default: no process is left in the session. */
  gone?: () => boolean;
  /** Settles when the session's leader exits: wakes the wait at once instead of at its next poll. */
  exited?: Promise<void>;
}

/**
 * Ends every process in POSIX session `sid`: `signal` and SIGCONT (a stopped
 * job sees its signal only once it runs), then SIGKILL for what is left
 * after `graceMs`. Resolves once `gone()` holds, or SIGKILL's wait is over.
 */
export async function endPosixSession(sid: number, options: EndPosixSessionOptions): Promise<void> {
  // Signalling session 0 would reach our own process group.
  if (sid <= 0) return;
  const gone = options.gone ?? (() => posixSessionMembers(sid).length === 0);
  const exited = options.exited ?? settled;
  if (gone()) return;
  signalPosixSession(sid, options.signal);
  signalPosixSession(sid, 'SIGCONT');
  if (await waitFor(gone, exited, options.graceMs)) return;
  signalPosixSession(sid, 'SIGKILL');
  await waitFor(gone, exited, SIGKILL_WAIT_MS);
}

/**
 * Ends the session's process and everything in its session/process group,
 * once: concurrent callers share the one escalation (session.termination).
 * Resolves once the session has exited and none of its processes is alive.
 *
 * An exited session whose terminal was closed by everyone at exit and whose
 * process group is empty has nothing left to end; skipping the process-table
 * scan keeps remove() and retention eviction cheap. (A job that detached
 * from the terminal entirely, like `nohup cmd >/dev/null 2>&1 &` in another
 * process group, is left alone, as closing a terminal window would.)
 */
export function endSessionProcesses(session: PtySession, killGraceMs: number): Promise<void> {
  session.termination ??= (async () => {
    const sid = session.info.pid;
    if (!session.running && !session.terminalHeld && !groupAlive(sid)) return;
    await endPosixSession(sid, {
      signal: 'SIGHUP',
      graceMs: killGraceMs,
      gone: () => !session.running && posixSessionMembers(sid).length === 0,
      exited: session.exited,
    });
  })();
  return session.termination;
}

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
