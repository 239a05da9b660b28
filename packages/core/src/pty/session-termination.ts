/**
 * How a POSIX session's processes are ended, for a PTY session and an ACP
 * agent alike: a first signal and SIGCONT to the whole session, SIGKILL after
 * a grace period for what survives, and the waits in between, which wake on
 * the leader's exit and poll for the processes left (not our children, so
 * only polling sees them go). A PTY session's are ended by whose it is:
 * - an agent's: its whole POSIX session, then everything else it owns
 *   (what descended from it while it ran, whatever its environment claims,
 *   and detached jobs carrying its labels, pty/end-processes.ts): the agent
 *   started them and is not there to end them;
 * - the developer's: as closing a terminal window does. The session's own
 *   process group and its terminal's foreground job get SIGHUP (SIGKILL after
 *   the grace period for what ignores it); the shell passes the hangup on to
 *   its jobs; what detached on purpose (nohup, setsid) lives on, still known
 *   by its PTYDECK_SESSION_ID (the process watch lists it: facts/process-watch.ts).
 */
import { endSessionLeftovers } from './end-processes.js';
import { sessionProcesses } from './session-processes.js';
import { readStat } from '../proc/proc-fs.js';
import { groupAlive, groupMembers, posixSessionMembers, signalGroups, signalPosixSession } from './process-tree.js';
import { escalate, type Escalation } from '../proc/process-wait.js';
import type { PtySession } from './pty-session.js';
import type { LabelReader } from './session-labels.js';

export { waitFor } from '../proc/process-wait.js';

export interface EndPosixSessionOptions extends Escalation {
  /** Everything is gone. Default: no process is left in the session. */
  gone?: () => boolean;
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
  await escalate((signal) => signalPosixSession(sid, signal), gone, options);
}

/**
 * Ends the session's processes as its source calls for, once: concurrent
 * callers share the one escalation (session.termination). Resolves once the
 * session has exited and none of the processes it ends is alive.
 *
 * An exited session whose terminal was closed by everyone at exit and whose
 * process group is empty has nothing left in its POSIX session; skipping the
 * process-table scan keeps remove() and retention eviction cheap.
 */
export function endSessionProcesses(session: PtySession, killGraceMs: number, labels: LabelReader): Promise<void> {
  session.termination ??= (async () => {
    if (session.info.source === 'user') {
      await hangUp(session, killGraceMs);
      return;
    }
    const sid = session.info.pid;
    // Read while its process runs: what descends from it is its own whatever its label says, and that tree is lost
    // once the process exits (a `setsid` child that relabelled itself goes to init).
    const descended = session.running ? sessionProcesses(labels, { id: session.id, pid: sid, running: true }) : [];
    if (session.running || session.terminalHeld || groupAlive(sid)) {
      await endPosixSession(sid, {
        signal: 'SIGHUP',
        graceMs: killGraceMs,
        gone: () => !session.running && posixSessionMembers(sid).length === 0,
        exited: session.exited,
      });
    }
    await endSessionLeftovers(labels, { id: session.id, pid: sid }, killGraceMs, false, descended);
  })();
  return session.termination;
}

/** A terminal window closing: the hangup reaches the session's group and its foreground job, and only those are made to end. */
async function hangUp(session: PtySession, killGraceMs: number): Promise<void> {
  const sid = session.info.pid;
  if (!session.running && !groupAlive(sid)) return;
  const foreground = session.running ? readStat(sid)?.tpgid : undefined;
  const groups = foreground !== undefined && foreground > 0 && foreground !== sid ? [sid, foreground] : [sid];
  const gone = () => !session.running && groupMembers(groups).length === 0;
  await escalate((signal) => signalGroups(groups, signal), gone, { signal: 'SIGHUP', graceMs: killGraceMs, exited: session.exited });
}
