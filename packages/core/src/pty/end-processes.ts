// Ends processes a session left behind that are not our children, never a later process reusing a pid.
import { escalate } from '../proc/process-wait.js';
import type { LabelReader } from './session-labels.js';
import { sessionLeftovers, stillRunning, type OwnedProcess, type SessionRef } from './session-processes.js';

/**
 * Ends processes that are not our children (a session's detached jobs):
 * SIGTERM, SIGKILL after `graceMs` for what survives (at once with `force`).
 * Each is signalled only while the same process (pid and start time) runs,
 * never a later one that reuses its pid. Resolves with those still running.
 */
export async function endProcesses(processes: readonly OwnedProcess[], graceMs: number, force: boolean): Promise<OwnedProcess[]> {
  const alive = () => processes.filter(stillRunning);
  const signalAll = (signal: NodeJS.Signals) => {
    for (const proc of alive()) {
      try {
        process.kill(proc.pid, signal);
      } catch {
        // exited meanwhile, or not ours to signal: it stays in the survivors
      }
    }
  };
  await escalate(signalAll, () => alive().length === 0, { signal: 'SIGTERM', graceMs, force });
  return alive();
}

/**
 * What an agent's session leaves once its process group and POSIX session
 * are ended: each process still in its POSIX session or carrying its labels
 * (nohup, setsid, a daemon), and those of `descended` (what descended from
 * its process before it was ended) still running, ended as endProcesses
 * does. Every way an agent's session ends goes through here: terminal_close,
 * the panel closing its tab, eviction, its owner's departure
 * (pty/session-termination.ts). Resolves with those still running.
 */
export function endSessionLeftovers(
  labels: LabelReader,
  session: Pick<SessionRef, 'id' | 'pid'>,
  graceMs: number,
  force: boolean,
  descended: readonly OwnedProcess[] = [],
): Promise<OwnedProcess[]> {
  return endProcesses(unionOf(descended, sessionLeftovers(labels, session)), graceMs, force);
}

/** Each process once, by pid and start time. */
export function unionOf(...lists: (readonly OwnedProcess[])[]): OwnedProcess[] {
  const all = new Map<string, OwnedProcess>();
  for (const list of lists) for (const proc of list) all.set(`${proc.pid}:${proc.startTicks}`, proc);
  return [...all.values()];
}
