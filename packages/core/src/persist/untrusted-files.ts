/**
 * Reading files in a directory that anything running as the developer can
 * write (an agent's shell included, unless a sandbox hides it): what sits
 * under a name of ours may be a FIFO (an open or a read that never returns),
 * a link to /dev/zero (a read that never ends), a directory, or a file of any
 * size. So a file is opened without following a link and without blocking,
 * judged by fstat on the descriptor (what was opened is what is judged), and
 * read, asynchronously, only when it is a regular file under a size cap.
 * What fails that is set aside, not removed: nothing here knows whose it is.
 */
import { randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { lstat, mkdir, open, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { byteCount } from '@ptydeck/contract';

/** Where set-aside entries go, inside the directory they were found in. */
export const SET_ASIDE_DIR = 'set-aside';

/** A file a reader refuses: the reason is one line, for the log. */
export class RefusedFile extends Error {}

const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** The file's bytes, or undefined when there is none; RefusedFile when it is not a regular file of at most `maxBytes`. */
export async function readRegularFile(path: string, maxBytes: number): Promise<Buffer | undefined> {
  let handle;
  try {
    handle = await open(path, READ_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    // O_NOFOLLOW's answer for a link (where it points is not ours to read).
    if (code === 'ELOOP') throw new RefusedFile('a symbolic link, not a regular file');
    throw error;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new RefusedFile(`not a regular file (${kindOf(stat)})`);
    if (stat.size > maxBytes) throw new RefusedFile(`${byteCount(stat.size)}, more than the ${byteCount(maxBytes)} such a file can hold`);
    // The size fstat gave, no more: a file that grows while it is read is read as it was.
    const data = Buffer.alloc(stat.size);
    let filled = 0;
    while (filled < data.length) {
      const { bytesRead } = await handle.read(data, filled, data.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return data.subarray(0, filled);
  } finally {
    await handle.close();
  }
}

/** What an entry is, in words (lstat: a link is a link). */
export function kindOf(stat: Stats): string {
  if (stat.isFile()) return 'a regular file';
  if (stat.isDirectory()) return 'a directory';
  if (stat.isSymbolicLink()) return 'a symbolic link';
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  return 'an unknown kind of file';
}

/**
 * Moves `name` (any kind of entry, a link not followed) from `dir` into
 * `dir/set-aside/`, under a name of its own; resolves with where it went, or
 * undefined when it stays (set-aside is not a plain directory of this user's,
 * or the move failed), for the log to say. Never throws.
 */
export async function setAside(dir: string, name: string): Promise<string | undefined> {
  const aside = join(dir, SET_ASIDE_DIR);
  try {
    await mkdir(aside, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
    const stat = await lstat(aside);
    // A link planted under the name would take the entry wherever it points.
    if (!stat.isDirectory() || (process.getuid && stat.uid !== process.getuid())) return undefined;
    const target = join(aside, `${name}.${randomBytes(4).toString('hex')}`);
    await rename(join(dir, name), target);
    return target;
  } catch {
    return undefined;
  }
}
