// The empty file sandboxes lay over hidden files: one per host, in a directory of its own under the host's
// temporary directory, removed when the host stops, and a dead host's by the next host.
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { makeHostTempDir, removeHostTempDir } from '../common/host-temp-dirs.js';
import { STARTUP_COPIES } from './startup-files.js';

/**
 * The kind of the empty file's directory and what it holds, for removeDeadHostsTempDirs (common/host-temp-dirs.ts): the
 * empty file, and the copies of HOME's startup files made beside it (startup-files.ts).
 */
export const EMPTY_FILE_DIR = { sandbox: ['empty', ...STARTUP_COPIES] } as const;

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
    const path = join(makeHostTempDir('sandbox'), 'empty');
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
  removeHostTempDir(dirname(empty), EMPTY_FILE_DIR.sandbox);
  empty = undefined;
}
