// What a session owns on the machine (processes, listening ports), read from /proc only when a result asks.
import { SESSION_ID_ENV } from '../pty/environment.js';
import { isLive, procPids, readOptional, readStat, socketInodes, type ProcStat } from './proc-fs.js';
import { listeningSockets, type ListeningSocket } from './tcp-table.js';

/**
 * What a session owns on the machine, read from /proc on demand (never on the
 * keystroke or output path). A process is the session's when any of these holds:
 * - it descends from the session's process (its ppid chain), while that runs:
 *   once it has exited its pid may belong to anyone;
 * - it is in the session's POSIX session (node-pty starts the session's process
 *   with setsid, so its pid is the sid of everything that stays in the terminal;
 *   the kernel reuses no pid still in use as a sid);
 * - its environment carries PTYDECK_SESSION_ID=<the session's id>, which every
 *   session's process starts with and children inherit: this finds what left on
 *   purpose (nohup, setsid, a daemon's double fork to init).
 * A process that both scrubs its environment and leaves the tree and the POSIX
 * session cannot be told from anyone else's, and is not found.
 */

export interface SessionRef {
  id: string;
  pid: number;
  /** Whether the session's process still runs: only then does its pid name its tree. */
  running: boolean;
}

export interface OwnedProcess {
  pid: number;
  /** Its command line, bounded. */
  command: string;
  /** Unix time in ms. */
  startedAt: number;
  pgrp: number;
  /** Start time in clock ticks after boot: with the pid, names this process and no later one that reuses the pid. */
  startTicks: number;
}

export interface OwnedPort extends ListeningSocket {
  /** The (first) process of the session holding the listening socket. */
  pid: number;
  /** The socket's inode: a port closed and opened again is a new socket. */
  inode: string;
}

export interface SessionSnapshot {
  processes: OwnedProcess[];
  ports: OwnedPort[];
  /** The foreground process group of the session's terminal while its process runs, else null. */
  foregroundGroup: number | null;
}

const MAX_COMMAND_CHARS = 300;
/**
 * Linux reports times in /proc in USER_HZ ticks, which the kernel fixes at 100
 * for userspace on every architecture Node runs on (sysconf(_SC_CLK_TCK) is
 * not reachable from Node).
 */
const TICKS_PER_SECOND = 100;

/** Whether this system can say (Linux /proc); elsewhere every caller leaves the fields out. */
export function processesKnown(): boolean {
  return process.platform === 'linux' && readOptional('/proc/self/stat') !== undefined;
}

/** One scan of the process table for several sessions at once; undefined where /proc is missing. */
export function snapshotSessions(sessions: readonly SessionRef[]): Map<string, SessionSnapshot> | undefined {
  if (!processesKnown()) return undefined;
  const stats = new Map<number, ProcStat>();
  const children = new Map<number, number[]>();
  for (const pid of procPids()) {
    const stat = readStat(pid);
    if (!stat || !isLive(stat) || pid === process.pid) continue;
    stats.set(pid, stat);
    const siblings = children.get(stat.ppid);
    if (siblings) siblings.push(pid);
    else children.set(stat.ppid, [pid]);
  }
  const owner = new Map<number, string>();
  for (const session of sessions) {
    if (session.pid <= 0) continue;
    const queue = session.running && stats.has(session.pid) ? [session.pid] : [];
    for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
      if (owner.has(next)) continue;
      owner.set(next, session.id);
      queue.push(...(children.get(next) ?? []));
    }
    // A live process with an ended session's pid means the pid was reused (the kernel keeps a pid from reuse only while
    // some process has it as its sid): the sid then names the new process's session, not what ours left.
    if (!session.running && stats.has(session.pid)) continue;
    for (const [pid, stat] of stats) if (stat.sid === session.pid && !owner.has(pid)) owner.set(pid, session.id);
  }
  const ids = new Set(sessions.map((session) => session.id));
  for (const pid of stats.keys()) {
    if (owner.has(pid)) continue;
    const id = sessionIdOf(pid);
    if (id !== undefined && ids.has(id)) owner.set(pid, id);
  }

  const listening = listeningSockets() ?? new Map<string, ListeningSocket>();
  const bootMs = bootTimeMs();
  const result = new Map<string, SessionSnapshot>();
  for (const session of sessions) {
    const leader = session.running ? stats.get(session.pid) : undefined;
    result.set(session.id, { processes: [], ports: [], foregroundGroup: leader && leader.tpgid > 0 ? leader.tpgid : null });
  }
  for (const [pid, id] of [...owner].sort(([a], [b]) => a - b)) {
    const stat = stats.get(pid)!;
    const snapshot = result.get(id)!;
    snapshot.processes.push({ pid, command: commandOf(pid), startedAt: bootMs + (stat.startTicks * 1000) / TICKS_PER_SECOND, pgrp: stat.pgrp, startTicks: stat.startTicks });
    if (listening.size === 0) continue;
    for (const inode of socketInodes(pid)) {
      const socket = listening.get(inode);
      if (socket && !snapshot.ports.some((port) => port.inode === inode)) snapshot.ports.push({ ...socket, pid, inode });
    }
  }
  for (const snapshot of result.values()) snapshot.ports.sort((a, b) => a.port - b.port || a.address.localeCompare(b.address));
  return result;
}

export function snapshotSession(session: SessionRef): SessionSnapshot | undefined {
  return snapshotSessions([session])?.get(session.id);
}

/** Processes that are not the session's own process nor its terminal's foreground job: what runs behind the agent's back. */
export function backgroundProcesses(session: SessionRef, snapshot: SessionSnapshot): OwnedProcess[] {
  return snapshot.processes.filter(
    (proc) => !(session.running && proc.pid === session.pid) && !(snapshot.foregroundGroup !== null && snapshot.foregroundGroup !== session.pid && proc.pgrp === snapshot.foregroundGroup),
  );
}

/** Whether `proc` still runs: the same pid started at the same tick, not a zombie. */
export function stillRunning(proc: OwnedProcess): boolean {
  const stat = readStat(proc.pid);
  return stat !== undefined && isLive(stat) && stat.startTicks === proc.startTicks;
}

function sessionIdOf(pid: number): string | undefined {
  const environ = readOptional(`/proc/${pid}/environ`);
  if (!environ) return undefined; // another user's process, a kernel thread, or gone
  const key = `${SESSION_ID_ENV}=`;
  const at = environ.startsWith(key) ? 0 : environ.indexOf(`\0${key}`) + 1;
  if (at === 0 && !environ.startsWith(key)) return undefined;
  const start = at + key.length;
  const end = environ.indexOf('\0', start);
  return environ.slice(start, end < 0 ? undefined : end);
}

function commandOf(pid: number): string {
  const cmdline = readOptional(`/proc/${pid}/cmdline`, 'utf8') ?? '';
  const command = cmdline.replace(/\0+$/, '').replaceAll('\0', ' ');
  return command.length > MAX_COMMAND_CHARS ? `${command.slice(0, MAX_COMMAND_CHARS - 1)}…` : command;
}

let bootTime: number | undefined;
function bootTimeMs(): number {
  if (bootTime === undefined) {
    const match = /^btime (\d+)$/m.exec(readOptional('/proc/stat') ?? '');
    bootTime = match ? Number(match[1]) * 1000 : 0;
  }
  return bootTime;
}
