import { mkdtempSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Shared pieces of the reliability suite (hostile requests, fuzzing, floods,
 * faults, leaks): an isolated HOME, a seeded PRNG, the process table, the
 * descriptor table and a forced GC. Test-only; nothing in the product uses it.
 */

/**
 * A HOME of its own with a plain prompt, so spawned shells never read the
 * machine's rc files (a slow pyenv init would make the suite measure dotfiles).
 */
export function isolatedHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'ptydeck-rel-home-'));
  writeFileSync(join(home, '.profile'), "PS1='rel$ '\n");
  writeFileSync(join(home, '.bashrc'), "PS1='rel$ '\n");
  return home;
}

/** mulberry32: tiny, fast, and the same sequence for the same seed, so a failing fuzz run reproduces. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

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
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'latin1');
    } catch {
      continue; // exited while we looked
    }
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const [state, ppid, pgrp, sid] = stat.slice(close + 2).split(' ', 4);
    if (state === 'Z' || state === 'X') continue;
    entries.push({ pid: Number(name), ppid: Number(ppid), pgrp: Number(pgrp), sid: Number(sid), state: state!, comm });
  }
  return entries;
}

/** The value of `name` in the environment of the first live process (readable to us) that carries it. */
export function environValue(name: string): string | undefined {
  for (const { pid } of processTable()) {
    let environ: string;
    try {
      environ = readFileSync(`/proc/${pid}/environ`, 'latin1');
    } catch {
      continue; // another user's, or gone
    }
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

/** The descriptors this process holds right now, fd number to what it points at. */
export function openDescriptors(): Map<number, string> {
  const fds = new Map<number, string>();
  for (const name of readdirSync('/proc/self/fd')) {
    let target = '?';
    try {
      target = readlinkSync(`/proc/self/fd/${name}`);
    } catch {
      continue; // the fd readdir itself used, closed by now
    }
    fds.set(Number(name), target);
  }
  return fds;
}

let gcFunction: (() => void) | undefined;

/** A full GC, available without --expose-gc: the flag is turned on at run time and gc taken from a fresh context. */
export function collectGarbage(): void {
  if (!gcFunction) {
    setFlagsFromString('--expose-gc');
    gcFunction = runInNewContext('gc') as () => void;
  }
  gcFunction();
  gcFunction();
}

/** heapUsed after a full GC, in bytes. */
export function settledHeap(): number {
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

/** Waits for `condition` by polling: for state that changes without an event to listen to (the process table). */
export async function until(condition: () => boolean, what: string, timeoutMs = 20_000, pollMs = 25): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
