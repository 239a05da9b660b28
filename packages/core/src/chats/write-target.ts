// Where an agent's file write would really land, resolved before the developer is asked, and the write itself.
import { constants } from 'node:fs';
import { lstat, mkdir, open, realpath } from 'node:fs/promises';
import path from 'node:path';

/**
 * Where an agent's file write would really land, and the write itself. The
 * agent names a path; `..` and symbolic links (the file itself or any
 * directory above it) can take the write elsewhere, so the developer is asked
 * about, and ptydeck writes, the resolved path: the real path of the deepest
 * part that exists, with the rest of the name after it.
 */
export async function resolveWriteTarget(requested: string): Promise<string> {
  let existing = path.resolve(requested);
  const missing: string[] = [];
  for (;;) {
    try {
      return path.join(await realpath(existing), ...missing);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') throw error;
      // A link to nothing: where the write would go depends on what appears there later.
      if (await isSymbolicLink(existing)) throw new Error(`'${existing}' is a symbolic link to a missing target`);
      const parent = path.dirname(existing);
      if (parent === existing) return path.resolve(requested);
      missing.unshift(path.basename(existing));
      existing = parent;
    }
  }
}

/** Whether `target` is `dir` or inside it (both resolved). */
export function isWithin(target: string, dir: string): boolean {
  const relative = path.relative(dir, target);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/**
 * Writes `content` to the resolved `target`, creating missing parent
 * directories as an editor saving a new file would. The file itself is opened
 * without following a link: one swapped in after the developer answered
 * fails the write instead of redirecting it.
 */
export async function writeResolved(target: string, content: string): Promise<void> {
  await mkdir(path.dirname(target), { recursive: true });
  const handle = await open(target, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o666);
  try {
    await handle.writeFile(content, 'utf8');
  } finally {
    await handle.close();
  }
}

async function isSymbolicLink(target: string): Promise<boolean> {
  try {
    return (await lstat(target)).isSymbolicLink();
  } catch {
    return false;
  }
}
