/**
 * How a session's processes are ended, by whose session it is:
 * - an agent's: SIGHUP and SIGCONT to its whole POSIX session, SIGKILL after
 *   a grace period for what survives, then everything else it owns (detached
 *   jobs carrying its id, proc/end-processes.ts): the agent started them and
 *   is not there to end them;
 * - the developer's: as closing a terminal window does. The session's own
 *   process group and its terminal's foreground job get SIGHUP (SIGKILL after
 *   the grace period for what ignores it); the shell passes the hangup on to
 *   its jobs; what detached on purpose (nohup, setsid) lives on, still known
 *   by its PTYDECK_SESSION_ID (proc/session-processes.ts outlivedProcesses).
 * The waits in between wake on the session's exit and poll for the processes
 * left (not our children, so only polling sees them go).
 */
import { endSessionLeftovers } from '../proc/end-processes.js';
import { readStat } from '../proc/proc-fs.js';
import { groupAlive, groupMembers, posixSessionMembers, signalGroups, signalPosixSession } from './process-tree.js';
import { waitFor } from './process-wait.js';
import type { PtySession } from './pty-session.js';

export { waitFor } from './process-wait.js';

/** After SIGKILL a process dies as soon as the kernel schedules it; this only bounds a wait on a stuck (D state) one. */
const SIGKILL_WAIT_MS = 5000;

/**
 * Ends the session's processes as its source calls for, once: concurrent
 * callers share the one escalation (session.termination). Resolves once the
 * session has exited and none of the processes it ends is alive.
 */
export function endSessionProcesses(session: PtySession, killGraceMs: number): Promise<void> {
  session.termination ??= (async () => {
    if (session.info.source === 'user') {
      await hangUp(session, killGraceMs);
      return;
    }
    await endPosixSession(session, killGraceMs);
    await endSessionLeftovers({ id: session.id, pid: session.info.pid }, killGraceMs, false);
  })();
  return session.termination;
}

/**
 * The session's process, its group and everything else in its POSIX session.
 * An exited session whose terminal was closed by everyone at exit and whose
 * process group is empty has nothing left here; skipping the process-table
 * scan keeps remove() and retention eviction cheap.
 */
async function endPosixSession(session: PtySession, killGraceMs: number): Promise<void> {
  const sid = session.info.pid;
  if (!session.running && !session.terminalHeld && !groupAlive(sid)) return;
  const gone = () => !session.running && posixSessionMembers(sid).length === 0;
  if (gone()) return;
  signalPosixSession(sid, 'SIGHUP');
  signalPosixSession(sid, 'SIGCONT');
  if (await waitFor(gone, session.exited, killGraceMs)) return;
  signalPosixSession(sid, 'SIGKILL');
  await waitFor(gone, session.exited, SIGKILL_WAIT_MS);
}

/** A terminal window closing: the hangup reaches the session's group and its foreground job, and only those are made to end. */
async function hangUp(session: PtySession, killGraceMs: number): Promise<void> {
  const sid = session.info.pid;
  if (!session.running && !groupAlive(sid)) return;
  const foreground = session.running ? readStat(sid)?.tpgid : undefined;
  const groups = foreground !== undefined && foreground > 0 && foreground !== sid ? [sid, foreground] : [sid];
  const gone = () => !session.running && groupMembers(groups).length === 0;
  signalGroups(groups, 'SIGHUP');
  signalGroups(groups, 'SIGCONT');
  if (await waitFor(gone, session.exited, killGraceMs)) return;
  signalGroups(groups, 'SIGKILL');
  await waitFor(gone, session.exited, SIGKILL_WAIT_MS);
}
