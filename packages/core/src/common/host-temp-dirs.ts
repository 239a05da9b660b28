// The directories a host makes under its temporary directory, named for the process that made them
// (`ptydeck-<kind>-<pid>-<start ticks>-<mkdtemp's six>`), so a later host can remove a killed one's.
import { closeSync, constants, existsSync, fstatSync, mkdtempSync, openSync, rmdirSync, rmSync } from 'node:fs';
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
 * (rmdir fails on what is not empty, and it stays). The directory is opened without following a link
 * and its files removed through that descriptor: looked at by path, then removed by path, a link a
 * shell swapped in between (renameat2's exchange) had `<where it led>/bashrc` removed (host-temp-dirs.test.ts).
 * Where /proc is not there (macOS), the removal is by path, with that race.
 */
export function removeHostTempDir(dir: string, files: readonly string[]): void {
  let fd: number;
  try {
    fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch {
    // Gone already, or a link.
    return;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isDirectory() || stat.uid !== process.getuid?.()) return;
    const opened = existsSync('/proc/self/fd') ? `/proc/self/fd/${fd}` : dir;
    for (const file of files) rmSync(join(opened, file), { force: true });
    // By path: a link swapped in is not a directory to rmdir, and another directory is removed only where it is empty.
    rmdirSync(dir);
  } catch {
    // Holding more than ours: left.
  } finally {
    closeSync(fd);
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
