// The links among HOME's dot-files, looked for at every sandboxed shell's start: each directory is read again
// only when it changed, a stat instead of a read (a HOME of a few hundred dot-directories took 10 ms of CPU a shell).
import { lstatSync, readdirSync } from 'node:fs';
import { join, sep } from 'node:path';
import { settled, stampOf } from './settled.js';
import { isWithin } from './within.js';

/** HOME's entries looked at for links, at most: a policy is made at every shell's start. */
const MAX_HOME_ENTRIES_LOOKED_AT = 5000;
/** Dot-directories not looked into for links: caches, large and written by tools, not by a dotfiles manager. */
const NOT_LINKED_FROM = new Set(['.cache', '.npm', '.cargo', '.rustup', '.git', '.local/share/Trash']);

/**
 * A directory's entries that matter here, its links and directories, each with its place among all its
 * entries (the cap counts every one), and how many entries it has.
 */
interface Listing {
  kept: ReadonlyArray<{ name: string; link: boolean; at: number }>;
  count: number;
}

/**
 * What was last read of each directory walked, by its path, with the stamp it had just before: the same stamp
 * means the same entries (any entry made, removed, renamed or replaced changes the directory's change time).
 * Only a directory that had settled (settled.ts) when read is here.
 */
const listings = new Map<string, { stamp: string; listing: Listing }>();

/**
 * The links among HOME's dot-files: its own (~/.bashrc), and those in its dot-directories, two levels down
 * (~/.config/nvim, ~/.local/bin/tool); as paths, not followed. `now` is the clock, for tests.
 *
 * `writable` are the paths a sandboxed shell may write (config.json's `writable`, such as ~/.m2): a directory
 * that is or lies in one is not looked into. What a shell may write says nothing of what the developer's
 * tools read from elsewhere, and its entries would count toward the cap: a shell that made 5000 files in
 * ~/.m2 ended the walk there, so the next shell's fence missed ~/.vimrc's link into ~/dotfiles, which it
 * could then write (sandboxed-shells.test.ts).
 */
export function linksAmongDotFiles(home: string, now = Date.now(), writable: readonly string[] = []): string[] {
  const links: string[] = [];
  const walked = new Set<string>();
  let looked = 0;
  const walk = (dir: string, relative: string, depth: number) => {
    walked.add(dir);
    const found = listing(dir, now);
    if (found === undefined) return;
    let counted = 0;
    for (const entry of found.kept) {
      // Each entry counts, in order; those between the kept ones too.
      looked += entry.at + 1 - counted;
      counted = entry.at + 1;
      if (looked > MAX_HOME_ENTRIES_LOOKED_AT) return;
      if (depth === 0 && !entry.name.startsWith('.')) continue;
      const name = relative === '' ? entry.name : `${relative}/${entry.name}`;
      const path = join(dir, entry.name);
      if (entry.link) links.push(path);
      else if (depth < 2 && !NOT_LINKED_FROM.has(name) && !writable.some((each) => isWithin(path, each))) walk(path, name, depth + 1);
    }
    looked += found.count - counted;
  };
  walk(home, '', 0);
  // What this HOME no longer holds is forgotten: the map stays the size of the HOMEs walked.
  const under = home.endsWith(sep) ? home : home + sep;
  for (const dir of listings.keys()) if ((dir === home || dir.startsWith(under)) && !walked.has(dir)) listings.delete(dir);
  return links;
}

/** The directories whose listing is remembered (for tests). */
export function rememberedDirectories(): string[] {
  return [...listings.keys()];
}

/** `dir`'s links and directories (a link is not followed); undefined where it cannot be read. */
function listing(dir: string, now: number): Listing | undefined {
  let stat;
  try {
    stat = lstatSync(dir, { throwIfNoEntry: false });
  } catch {
    stat = undefined;
  }
  const stamp = stat?.isDirectory() ? stampOf(stat) : undefined;
  const known = listings.get(dir);
  if (known !== undefined && known.stamp === stamp) return known.listing;
  listings.delete(dir);
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return undefined;
  }
  const kept: Listing['kept'][number][] = [];
  entries.forEach((entry, at) => {
    if (entry.isSymbolicLink()) kept.push({ name: entry.name, link: true, at });
    else if (entry.isDirectory()) kept.push({ name: entry.name, link: false, at });
  });
  const found = { kept, count: entries.length };
  // Stamped before the read: a change in between leaves a newer stamp, and the next shell reads again.
  if (stat !== undefined && stamp !== undefined && settled(stat, now)) listings.set(dir, { stamp, listing: found });
  return found;
}
