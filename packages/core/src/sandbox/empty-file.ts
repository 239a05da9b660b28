// The empty file sandboxes lay over hidden files: one per host, in a directory of its own under the host's
// temporary directory, removed when the host stops, and a dead host's by the next host.
import { existsSync, lstatSync, mkdtempSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { identityAlive, processIdentity } from '../common/process-identity.js';

/** `ptydeck-sandbox-<pid>-<start ticks>-<mkdtemp's six>`: whose it is, so a later host can tell a dead host's. */
const NAME = /^ptydeck-sandbox-(\d+)-(\d+|\?)-[A-Za-z0-9]{6}$/;

let empty: string | undefined;

/**
 * An empty read-only file to lay over a hidden file, so that it reads as
 * empty, as if it said nothing, rather than failing: /dev/null bound there is
 * on a nodev mount inside bubblewrap's user namespace and answers EACCES. In a
 * directory of this process's own, under the host's temporary directory,
 * which the sandbox does not see; made again if something (a tmp cleaner)
 * removed it.
 */
export function emptyFile(): string {
  if (empty === undefined || !existsSync(empty)) {
    const path = join(mkdtempSync(join(tmpdir(), `ptydeck-sandbox-${processIdentity().replace(':', '-')}-`)), 'empty');
    writeFileSync(path, '', { mode: 0o444 });
    empty = path;
  }
  return empty;
}

/**
 * Removes this process's empty file and its directory (the host stops).
 * Sandboxes already running keep theirs: a bind mount holds the file, not
 * its name. A later sandbox of this process makes a new one.
 */
export function removeEmptyFile(): void {
  if (empty === undefined) return;
  removeEmptyFileDir(dirname(empty));
  empty = undefined;
}

/**
 * Removes the empty files of hosts no longer running (killed before they could), in this process's temporary
 * directory. Asynchronous, and started once the host serves: a shared /tmp can hold tens of thousands of names,
 * and listing them (about 45 ms for 40 000 at load, more on a slow disk) is no reason for a client to wait.
 */
export async function removeDeadHostsEmptyFiles(): Promise<void> {
  let names: string[];
  try {
    names = await readdir(tmpdir());
  } catch {
    return;
  }
  for (const name of names) {
    const match = NAME.exec(name);
    if (match && !identityAlive(`${match[1]}:${match[2]}`)) removeEmptyFileDir(join(tmpdir(), name));
  }
}

/**
 * The directory and its `empty`, only if it is a real directory of this
 * user's: /tmp is shared, and anyone may have made a directory by that name.
 * Nothing else in it is removed (rmdir fails on what is not empty, and it stays).
 */
function removeEmptyFileDir(dir: string): void {
  try {
    const stat = lstatSync(dir);
    if (!stat.isDirectory() || stat.uid !== process.getuid?.()) return;
    rmSync(join(dir, 'empty'), { force: true });
    rmdirSync(dir);
  } catch {
    // Gone already, or holding more than ours: left.
  }
}
