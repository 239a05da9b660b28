// What a leak test measures of this process: the descriptors it holds and its heap after a full GC.
import { readdirSync, readlinkSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

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
