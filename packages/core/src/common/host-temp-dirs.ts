// The directories a host makes under its temporary directory, named for the process that made them
// (`ptydeck-<kind>-<pid>-<start ticks>-<mkdtemp's six>`), so a later host can remove a killed one's.
import { lstatSync, mkdtempSync, rmdirSync, rmSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { identityAlive, processIdentity } from './process-identity.js';

/** A new directory of this process's of `kind` (letters) under the temporary directory. */
export function makeHostTempDir(kind: string): string {
  return mkdtempSync(join(tmpdir(), `ptydeck-${kind}-${processIdentity().replace(':', '-')}-`));
}

/**
 * The directory and the files of ours named in it, only if it is a real directory of this user's:
 * /tmp is shared, and anyone may have made a directory by that name. Nothing else in it is removed
 * (rmdir fails on what is not empty, and it stays).
 */
export function removeHostTempDir(dir: string, files: readonly string[]): void {
  try {
    const stat = lstatSync(dir);
    if (!stat.isDirectory() || stat.uid !== process.getuid?.()) return;
    for (const file of files) rmSync(join(dir, file), { force: true });
    rmdirSync(dir);
  } catch {
    // Gone already, or holding more than ours: left.
  }
}

/**
 * Removes the directories that processes no longer running (hosts killed before they could) made, for
 * each kind with the files it holds. Asynchronous, and started once the host serves: a shared /tmp can
 * hold tens of thousands of names, and listing them (about 45 ms for 40 000 at load, more on a slow
 * disk) is no reason for a client to wait.
 */
export async function removeDeadHostsTempDirs(kinds: Readonly<Record<string, readonly string[]>>): Promise<void> {
  let names: string[];
  try {
    names = await readdir(tmpdir());
  } catch {
    return;
  }
  for (const name of names) {
    const match = /^ptydeck-([a-z]+)-(\d+)-(\d+|\?)-[A-Za-z0-9]{6}$/.exec(name);
    const files = match ? kinds[match[1]!] : undefined;
    if (match && files && !identityAlive(`${match[2]}:${match[3]}`)) removeHostTempDir(join(tmpdir(), name), files);
  }
}
