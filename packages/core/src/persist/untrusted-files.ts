/**
 * Setting aside what the session store refuses to read (common/untrusted-read.ts
 * has the rules): it is moved, not removed, since nothing here knows whose it is.
 */
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';

/** Where set-aside entries go, inside the directory they were found in. */
export const SET_ASIDE_DIR = 'set-aside';

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
