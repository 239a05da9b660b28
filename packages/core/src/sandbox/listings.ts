// The directories a sandbox's policy lists, listed before it is built, off the loop in slices: the working directory a
// shell fills (200,000 files took 754 ms of readdirSync, on the host's loop, at every later shell's start there).
import { opendirSync, readdirSync, statSync, type Dirent, type Stats } from 'node:fs';
import { opendir } from 'node:fs/promises';
import { nextLoopTurn } from '../common/loop-turn.js';
import { WaitFirst } from '../common/wait-first.js';
import { stampOf } from './settled.js';

/** Entries listed in one turn of the loop, at most: a few hundred microseconds of work. */
export const LISTED_PER_TURN = 256;
/** Rounds of listing one policy may take (each round lists what the last build found it needs): past it, the policy fails. */
const MAX_ROUNDS = 64;

/** Entries counted as they are listed, for tests: what a turn of the loop listed is the difference between two turns' reads. */
export const listedEntries = { count: 0 };

/**
 * The listings one policy is built from, gathered over rounds: a build (buildFrom) lists a directory it asks for in its
 * own turn while that takes at most LISTED_PER_TURN entries in all; one past that it notes, and fails with WaitFirst,
 * whose `ready` lists what it noted in slices; the next build finds it here.
 */
export class Listings {
  private readonly listed = new Map<string, { entries: Dirent[] | null; stamp: string | undefined }>();
  private readonly wanted = new Set<string>();
  private rounds = 0;
  /**
   * Entries the build running now may still list in its own turn (listNow): the few small directories most shells
   * start in are listed there, and need no round of their own (figure 14's create went from 1.48x to 1.57x of an
   * unsandboxed one when every listing took one).
   */
  private budget = 0;

  /** `dir`'s entries, null where it cannot be read; undefined (and noted) where not yet listed. */
  get(dir: string): Dirent[] | null | undefined {
    const known = this.listed.get(dir);
    if (known !== undefined) return known.entries;
    const now = this.listNow(dir);
    if (now === undefined) this.wanted.add(dir);
    return now;
  }

  /**
   * `dir` listed in this turn (as listWanted lists it, stamped first), where it ends within the build's budget of
   * entries; undefined, and no budget left for this build, where it does not (the rest is listed in slices).
   */
  private listNow(dir: string): Dirent[] | null | undefined {
    if (this.budget <= 0) return undefined;
    const found = statOf(dir);
    const stamp = found === undefined ? undefined : stampOf(found);
    if (!found?.isDirectory()) {
      this.listed.set(dir, { entries: null, stamp });
      return null;
    }
    const kept = new Kept();
    let handle;
    try {
      // O_DIRECTORY, as listSliced's opendir: a FIFO or a device planted under the name fails, it does not block.
      handle = opendirSync(dir, { bufferSize: Math.min(this.budget, LISTED_PER_TURN) });
    } catch {
      this.listed.set(dir, { entries: null, stamp });
      return null;
    }
    try {
      for (;;) {
        const entry = handle.readSync();
        if (entry === null) break;
        kept.add(entry);
        listedEntries.count++;
        if (--this.budget <= 0) return undefined;
      }
    } catch {
      this.listed.set(dir, { entries: null, stamp });
      return null;
    } finally {
      handle.closeSync();
    }
    this.listed.set(dir, { entries: kept.entries, stamp });
    return kept.entries;
  }

  /**
   * Runs `build` (synchronous) with this object's listings in place of readdirSync (listingOf). Throws WaitFirst where
   * it asked for a directory not listed yet, or one listed has changed since (its stamp: a socket made in the working
   * directory meanwhile must be found, as when the listing was synchronous); the caller runs it again once ready.
   */
  buildFrom<T>(build: () => T): T {
    const before = current;
    current = this;
    this.budget = LISTED_PER_TURN;
    let built: T;
    try {
      built = build();
    } finally {
      current = before;
      this.budget = 0;
    }
    for (const [dir, known] of this.listed) {
      if (stampNow(dir) !== known.stamp) {
        this.listed.delete(dir);
        this.wanted.add(dir);
      }
    }
    if (this.wanted.size === 0) return built;
    if (++this.rounds > MAX_ROUNDS) throw new Error('its directories kept changing while they were listed');
    throw new WaitFirst(() => this.listWanted());
  }

  private async listWanted(): Promise<void> {
    const dirs = [...this.wanted];
    this.wanted.clear();
    let looked = 0;
    for (const dir of dirs) {
      // Most are not there, or are files (each project's `.git/worktrees`, `.mcp.json`): a stat, a few microseconds, says
      // so, where a listing's promises cost a hundred (2400 of a folder of 400 projects cost 250 ms of the loop's CPU).
      // A stat is no listing: its cost does not grow with the directory. Stamped before the listing: an entry made
      // during it changes the stamp, and the build lists it again.
      const found = statOf(dir);
      const stamp = found === undefined ? undefined : stampOf(found);
      this.listed.set(dir, { entries: found?.isDirectory() ? await listSliced(dir) : null, stamp });
      if (++looked % LISTED_PER_TURN === 0) await nextLoopTurn();
    }
  }
}

let current: Listings | undefined;

/**
 * Directories, and links, kept of one listing, at most: more than any cap of a policy's counts (500 projects, and the 13
 * names of RUN_BY_YOUR_TOOLS a directory may also be; 256 linked worktrees, 256 directories of `.git/modules`, 256 links
 * in the fenced directories), so a listing that has more still goes past each cap, and the policy fences as it did with
 * all of them. Sockets are all kept: each must be hidden.
 */
export const KEPT_PER_KIND = 4096;

/**
 * What a policy reads of a listing: directories (projects, linked worktrees, submodules' git directories), links (what
 * they lead to is fenced), sockets (hidden), and what is named HEAD or modules (a git directory and its submodules); other
 * directories and links up to KEPT_PER_KIND each. The rest, the bulk of a directory a shell filled, is dropped as it is
 * listed, so the build that reads the listing on the loop goes over what matters only.
 */
class Kept {
  readonly entries: Dirent[] = [];
  private directories = 0;
  private links = 0;

  add(entry: Dirent): void {
    // What a git directory is told by, and where its submodules are (git-named.ts's submodulesOf), past the cap too.
    if (entry.name === 'HEAD' || entry.name === 'modules') this.entries.push(entry);
    else if (entry.isDirectory()) {
      if (++this.directories <= KEPT_PER_KIND) this.entries.push(entry);
    } else if (entry.isSymbolicLink()) {
      if (++this.links <= KEPT_PER_KIND) this.entries.push(entry);
    } else if (entry.isSocket()) this.entries.push(entry);
  }
}

/**
 * What is directly in `dir` that a policy reads (Kept), a link at `dir` itself followed as readdirSync does, or null
 * where it cannot be read: from the listings a policy is being built from, or else read now.
 */
export function listingOf(dir: string): Dirent[] | null {
  if (current !== undefined) return current.get(dir) ?? null;
  try {
    const entries = readdirSync(dir, { withFileTypes: true });
    listedEntries.count += entries.length;
    const kept = new Kept();
    for (const entry of entries) kept.add(entry);
    return kept.entries;
  } catch {
    return null;
  }
}

/** `dir`'s entries, listed LISTED_PER_TURN at a time, a turn of the loop between; null where it cannot be read. */
export async function listSliced(dir: string): Promise<Dirent[] | null> {
  let handle;
  try {
    // opendir opens with O_DIRECTORY: a FIFO or a device planted under the name fails, it does not block.
    handle = await opendir(dir, { bufferSize: LISTED_PER_TURN });
  } catch {
    return null;
  }
  const kept = new Kept();
  let listed = 0;
  try {
    for (;;) {
      const entry = await handle.read();
      if (entry === null) return kept.entries;
      kept.add(entry);
      listedEntries.count++;
      if (++listed % LISTED_PER_TURN === 0) await nextLoopTurn();
    }
  } catch {
    return null;
  } finally {
    await handle.close().catch(() => {});
  }
}

function stampNow(dir: string): string | undefined {
  const found = statOf(dir);
  return found === undefined ? undefined : stampOf(found);
}

/** `dir`'s stat, followed as the listing follows a link at `dir` itself (a stat opens nothing); undefined where it fails. */
function statOf(dir: string): Stats | undefined {
  try {
    return statSync(dir, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}
