import { readStat } from '../proc/proc-fs.js';
import { waitFor } from '../proc/process-wait.js';

/**
 * A process named so that a reused pid does not pass for it: its pid and,
 * where /proc has it, its start time in clock ticks since boot (field 22 of
 * /proc/<pid>/stat), which a new process with the same pid cannot share.
 * Written as `pid:start` (`pid:?` where the start time cannot be read).
 */
export function processIdentity(pid: number = process.pid): string {
  return `${pid}:${startTimeOf(pid) ?? '?'}`;
}

/** Whether the process an identity names is still running (same pid, same start time). */
export function identityAlive(identity: string): boolean {
  const match = /^(\d+):(\d+|\?)$/.exec(identity);
  if (!match) return false;
  const pid = Number(match[1]);
  if (!isProcessAlive(pid)) return false;
  if (match[2] === '?') return true;
  const now = startTimeOf(pid);
  // Unreadable now (another user's process, or /proc gone): the pid alone decides.
  return now === undefined || now === match[2];
}

/** The pid an identity names, or undefined when it is not one. */
export function identityPid(identity: string): number | undefined {
  const match = /^(\d+):/.exec(identity);
  return match ? Number(match[1]) : undefined;
}

/** Whether the pid names a running process: a zombie (exited, not yet reaped) counts as gone. */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return stateOf(pid) !== 'Z';
}

/** Resolves true once the pid is gone, or false after `ms`. */
export function waitForExit(pid: number, ms: number): Promise<boolean> {
  // Not our child: only polling sees it go.
  return waitFor(() => !isProcessAlive(pid), Promise.resolve(), ms);
}

function startTimeOf(pid: number): string | undefined {
  const ticks = readStat(pid)?.startTicks;
  return ticks === undefined ? undefined : String(ticks);
}

function stateOf(pid: number): string | undefined {
  return readStat(pid)?.state;
}
