// The machine's process table as a test reads it from /proc, apart from the code under test: who is left, whose child, which environment.
import { isLive, procPids, readOptional, readStat } from '../proc/proc-fs.js';

export interface ProcessEntry {
  pid: number;
  ppid: number;
  pgrp: number;
  sid: number;
  state: string;
  comm: string;
}

/** Every process on the machine that is not a zombie, read from /proc. */
function processTable(): ProcessEntry[] {
  const entries: ProcessEntry[] = [];
  for (const pid of procPids()) {
    const stat = readStat(pid);
    // Gone while we looked, or a zombie.
    if (!stat || !isLive(stat)) continue;
    entries.push({ pid, ppid: stat.ppid, pgrp: stat.pgrp, sid: stat.sid, state: stat.state, comm: stat.name });
  }
  return entries;
}

/** The value of `name` in the environment of the first live process (readable to us) that carries it. */
export function environValue(name: string): string | undefined {
  for (const { pid } of processTable()) {
    const environ = readOptional(`/proc/${pid}/environ`);
    if (environ === undefined) continue; // another user's, or gone
    const found = environ.split('\0').find((variable) => variable.startsWith(`${name}=`));
    if (found) return found.slice(name.length + 1);
  }
  return undefined;
}

/**
 * Live processes that belong to any of the given sessions: node-pty starts
 * each child with setsid(), so a session's pid is its session id and the id
 * of its first process group; jobs a shell moved to their own group keep the sid.
 */
export function survivorsOf(sessionPids: Iterable<number>): ProcessEntry[] {
  const sids = new Set(sessionPids);
  return processTable().filter((entry) => sids.has(entry.sid) || sids.has(entry.pgrp) || sids.has(entry.pid));
}

/** Live descendants of `root` (not zombies), found through ppid links. */
export function descendantsOf(root: number): ProcessEntry[] {
  const table = processTable();
  const found: ProcessEntry[] = [];
  const frontier = [root];
  while (frontier.length > 0) {
    const parent = frontier.pop()!;
    for (const entry of table) {
      if (entry.ppid === parent) {
        found.push(entry);
        frontier.push(entry.pid);
      }
    }
  }
  return found;
}
