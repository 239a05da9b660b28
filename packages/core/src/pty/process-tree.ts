// Process lookups and signals for a session's process group and POSIX session.
import { constants } from 'node:os';
import { isLive, procPids, readStat } from '../proc/proc-fs.js';

/**
 * Process lookups for a session. node-pty starts every child with setsid(),
 * so the child's pid is both its process group and its session id. An
 * interactive shell moves each job into its own process group, so a kill
 * that only signals the group would miss `sleep 1000 &` started at a prompt;
 * we signal the group and every process whose session is the session's.
 */
const SIGNAL_NAMES = new Map<number, string>(Object.entries(constants.signals).map(([name, number]) => [number, name]));

export function signalName(signal: number | null | undefined): string | null {
  if (!signal) return null;
  return SIGNAL_NAMES.get(signal) ?? `SIG${signal}`;
}

export function isSignalName(value: unknown): value is NodeJS.Signals {
  return typeof value === 'string' && Object.hasOwn(constants.signals, value);
}

interface ProcessEntry {
  pid: number;
  pgrp: number;
  sid: number;
}

/**
 * Concurrent waits (dispose() ending 32 sessions) share one scan of /proc
 * per poll instead of each reading every process's stat file.
 */
const SCAN_TTL_MS = 10;
let lastScan: { at: number; entries: ProcessEntry[] } | null = null;

function scanProcesses(): ProcessEntry[] {
  const now = Date.now();
  if (lastScan && now - lastScan.at < SCAN_TTL_MS) return lastScan.entries;
  const entries: ProcessEntry[] = [];
  for (const pid of procPids()) {
    const stat = readStat(pid);
    // Gone while we looked, or a zombie waiting for its parent.
    if (stat && isLive(stat)) entries.push({ pid, pgrp: stat.pgrp, sid: stat.sid });
  }
  lastScan = { at: now, entries };
  return entries;
}

/** Pids (not zombies) in session or process group `sid`. Linux reads /proc; elsewhere only the group is known. */
export function posixSessionMembers(sid: number): number[] {
  if (process.platform !== 'linux') return groupAlive(sid) ? [sid] : [];
  let entries: ProcessEntry[];
  try {
    entries = scanProcesses();
  } catch {
    return groupAlive(sid) ? [sid] : [];
  }
  return entries.filter((entry) => entry.sid === sid || entry.pgrp === sid).map((entry) => entry.pid);
}

/** Pids (not zombies) in any of the process groups `pgids`. Linux reads /proc; elsewhere a group counts as its leader. */
export function groupMembers(pgids: readonly number[]): number[] {
  if (process.platform !== 'linux') return pgids.filter(groupAlive);
  let entries: ProcessEntry[];
  try {
    entries = scanProcesses();
  } catch {
    return pgids.filter(groupAlive);
  }
  return entries.filter((entry) => pgids.includes(entry.pgrp)).map((entry) => entry.pid);
}

/** Sends `signal` to each process group of `pgids` that still has members. */
export function signalGroups(pgids: readonly number[], signal: NodeJS.Signals): void {
  for (const pgid of pgids) {
    try {
      process.kill(-pgid, signal);
    } catch {
      // the group is gone already
    }
  }
}

/** True while any process is in group `pgid` (zombies included: the kernel still counts them). */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Sends `signal` to the session's process group and every other member of its session. */
export function signalPosixSession(sid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-sid, signal);
  } catch {
    // The group may be gone already; members in other groups are handled below.
  }
  for (const pid of posixSessionMembers(sid)) {
    try {
      process.kill(pid, signal);
    } catch {
      // exited meanwhile
    }
  }
}
