import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * The few /proc reads every process lookup shares (the process table, a
 * process's stat line, its socket descriptors). Linux only: callers check
 * `process.platform` and treat a missing file as a process that went away.
 */

/** Numeric entries of /proc: every process visible to us, in no particular order. */
export function procPids(): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    const first = name.charCodeAt(0);
    if (first >= 48 && first <= 57) pids.push(Number(name));
  }
  return pids;
}

export function readOptional(path: string, encoding: BufferEncoding = 'latin1'): string | undefined {
  try {
    return readFileSync(path, encoding);
  } catch {
    return undefined;
  }
}

export interface ProcStat {
  /** R, S, D, Z (zombie), X (dead), T, ... */
  state: string;
  ppid: number;
  pgrp: number;
  sid: number;
  /** The foreground process group of the process's controlling terminal (-1 without one). */
  tpgid: number;
  /** When the process started, in clock ticks after boot. */
  startTicks: number;
}

/** The fields of /proc/<pid>/stat we use. After "(comm)", which may hold spaces and parens: state ppid pgrp session tty_nr tpgid ... starttime (the 20th). */
export function parseStat(text: string): ProcStat {
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ', 20);
  return {
    state: fields[0] ?? '',
    ppid: Number(fields[1]),
    pgrp: Number(fields[2]),
    sid: Number(fields[3]),
    tpgid: Number(fields[5]),
    startTicks: Number(fields[19]),
  };
}

export function readStat(pid: number): ProcStat | undefined {
  const text = readOptional(`/proc/${pid}/stat`);
  return text === undefined ? undefined : parseStat(text);
}

/** Zombies and dead processes hold nothing and cannot be signalled out of existence. */
export function isLive(stat: ProcStat): boolean {
  return stat.state !== 'Z' && stat.state !== 'X';
}

/** The inodes of the sockets `pid` holds open; empty for another user's process or one that is gone. */
export function socketInodes(pid: number): string[] {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return [];
  }
  const inodes: string[] = [];
  for (const fd of fds) {
    let link: string;
    try {
      link = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue;
    }
    if (link.startsWith('socket:[')) inodes.push(link.slice(8, -1));
  }
  return inodes;
}
