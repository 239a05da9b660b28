import { opendirSync, readdirSync, type Dir } from 'node:fs';
import { readLink } from './proc-fs.js';

// Which sockets a process holds open, from its /proc/<pid>/fd links: the walks that find a listening
// port's holder (the process watch, an agent's ports) and the kernel's word on a peer (the clients' host check).

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
    const link = readLink(`/proc/${pid}/fd/${fd}`);
    if (link?.startsWith('socket:[')) inodes.push(link.slice(8, -1));
  }
  return inodes;
}

/** How many descriptors socketInodesInTurns reads (directory entries and links) between asking whether to pause: about 0.5 ms of reads. */
const FD_BATCH = 256;

/**
 * socketInodes, its descriptors listed and read FD_BATCH at a time, asking `pause` between batches (and
 * awaiting what it answers, when it answers a promise): a program may hold tens of thousands of
 * descriptors (as many as `ulimit -n` lets it), and one walk of 19,000 took 100 to 200 ms of the host's
 * CPU in one turn (bench/probe-long-turns.mjs). What it finds is what socketInodes would: a descriptor
 * opened or closed during the walk may or may not be seen, as with any read of a live process.
 */
export async function socketInodesInTurns(pid: number, pause: () => Promise<void> | undefined): Promise<string[]> {
  const path = `/proc/${pid}/fd`;
  let dir: Dir;
  try {
    dir = opendirSync(path, { bufferSize: FD_BATCH });
  } catch {
    return [];
  }
  const inodes: string[] = [];
  try {
    for (let read = 1; ; read++) {
      let entry;
      try {
        entry = dir.readSync();
      } catch {
        break; // the process went away under the walk
      }
      if (entry === null) break;
      const link = readLink(`${path}/${entry.name}`);
      if (link?.startsWith('socket:[')) inodes.push(link.slice(8, -1));
      if (read % FD_BATCH === 0) {
        const paused = pause();
        if (paused) await paused;
      }
    }
  } finally {
    dir.closeSync();
  }
  return inodes;
}

/**
 * Whether `pid` holds a descriptor of every socket in `inodes`; false for
 * another user's process or one that is gone. Reads its descriptors in the
 * order given and stops once all are found, rather than reading every link
 * as socketInodes does: a host's listening sockets are among its first
 * descriptors (and with a hundred sessions it holds hundreds more), a
 * connection just made (the asker of a request) among its last (bench figure 12).
 */
export function holdsSockets(pid: number, inodes: ReadonlySet<string>, order: 'oldest first' | 'newest first' = 'oldest first'): boolean {
  const missing = new Set(inodes);
  if (missing.size === 0) return true;
  let fds: number[];
  try {
    // Numbers, sorted: Node lists a directory sorted as text (0, 1, 10, 100, ...).
    fds = readdirSync(`/proc/${pid}/fd`).map(Number);
  } catch {
    return false;
  }
  fds.sort(order === 'oldest first' ? (a, b) => a - b : (a, b) => b - a);
  for (const fd of fds) {
    const link = readLink(`/proc/${pid}/fd/${fd}`);
    if (link?.startsWith('socket:[') && missing.delete(link.slice(8, -1)) && missing.size === 0) return true;
  }
  return false;
}

/**
 * Whether `pid` holds the socket `inode` open, looked for among its newest
 * descriptors first (see holdsSockets). Each link is compared whole with the
 * one the socket's would be, and no set is made: the judge of `ptydeck ls`
 * asks this of every process in a session (bench figure 12).
 */
export function holdsSocket(pid: number, inode: string): boolean {
  const dir = `/proc/${pid}/fd/`;
  let fds: string[];
  try {
    fds = readdirSync(dir);
  } catch {
    return false;
  }
  const wanted = `socket:[${inode}]`;
  // Listed sorted as text (0, 1, 10, 100, ...): newest is the largest number.
  if (fds.length > 1) fds.sort((a, b) => b.length - a.length || (b < a ? -1 : b > a ? 1 : 0));
  for (const fd of fds) if (readLink(dir + fd) === wanted) return true;
  return false;
}
