// Where an agent's file write would really land, resolved before the developer is asked, and the write itself.
import { constants, existsSync } from 'node:fs';
import { lstat, mkdir, open, realpath, type FileHandle } from 'node:fs/promises';
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
 * directories as an editor saving a new file would. `target` has no link
 * in it (resolveWriteTarget resolved them), and none is followed on the way:
 * a link swapped in for any part of it, the file or a directory above it,
 * after it was resolved (after the developer answered, or while a chat's
 * allowance is checked) fails the write instead of taking it elsewhere.
 *
 * Node has no openat2 (RESOLVE_NO_SYMLINKS), so on Linux the path is walked
 * one part at a time from open directories: each part is opened through
 * `/proc/self/fd/<parent>/<part>` with O_NOFOLLOW, which names the directory
 * already opened, not the path to it, so swapping an earlier part does not
 * redirect a later one. On macOS, O_NOFOLLOW_ANY refuses a link anywhere in
 * the file's path; missing directories are made by name first (a swap can
 * then leave an empty directory elsewhere, never the file). Elsewhere (no
 * /proc) each part is checked with lstat before the open: a swap between
 * the check and the open is not caught there.
 */
export async function writeResolved(target: string, content: string): Promise<void> {
  const handle = await openBeneathRoot(path.resolve(target));
  try {
    // A FIFO or a device planted under the name is not a file an editor saves (and a FIFO would hold the write).
    if (!(await handle.stat()).isFile()) throw new Error(`'${target}' is not a regular file`);
    await handle.truncate(0);
    await handle.writeFile(content, 'utf8');
  } finally {
    await handle.close();
  }
}

/** O_WRONLY | O_CREAT without following a link at the end; O_NONBLOCK so a FIFO fails instead of waiting for a reader. */
const FILE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;
/** Linux's O_PATH on the architectures Node ships for: opens a directory to walk through without read permission on it. */
const O_PATH = process.platform === 'linux' && ['x64', 'ia32', 'arm', 'arm64', 'riscv64', 'ppc64', 's390x', 'loong64'].includes(process.arch) ? 0o10000000 : 0;
/** macOS 11's O_NOFOLLOW_ANY: no link in any part of the path. */
const O_NOFOLLOW_ANY = 0x20000000;
const DIRECTORY_FLAGS = (O_PATH || constants.O_RDONLY) | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** Opens `target` (absolute, normalized) for writing, following no link in any of its parts. */
async function openBeneathRoot(target: string): Promise<FileHandle> {
  const parts = target.split(path.sep).filter((part) => part !== '');
  const name = parts.pop();
  if (name === undefined) throw new Error(`'${target}' names no file`);
  if (process.platform === 'linux' && existsSync('/proc/self/fd')) return openThroughDirectories(parts, name);
  if (process.platform === 'darwin') {
    await mkdir(path.dirname(target), { recursive: true });
    return open(target, FILE_FLAGS | O_NOFOLLOW_ANY, 0o666);
  }
  await makeDirectoriesChecked(parts);
  return open(target, FILE_FLAGS, 0o666);
}

/** Each directory opened beneath the one before it (by its descriptor), made when missing; then the file in the last. */
async function openThroughDirectories(parts: string[], name: string): Promise<FileHandle> {
  let directory = await open('/', DIRECTORY_FLAGS);
  try {
    for (const part of parts) {
      const beneath = `/proc/self/fd/${directory.fd}/${part}`;
      let next: FileHandle;
      try {
        next = await open(beneath, DIRECTORY_FLAGS);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw notADirectory(error, part);
        // mkdir never follows a link at the last part; another writer making it first is fine.
        await mkdir(beneath).catch((made: NodeJS.ErrnoException) => {
          if (made.code !== 'EEXIST') throw made;
        });
        next = await open(beneath, DIRECTORY_FLAGS).catch((error: unknown) => {
          throw notADirectory(error, part);
        });
      }
      await directory.close();
      directory = next;
    }
    return await open(`/proc/self/fd/${directory.fd}/${name}`, FILE_FLAGS, 0o666);
  } finally {
    await directory.close();
  }
}

/** A link (O_NOFOLLOW with O_DIRECTORY fails with ENOTDIR or ELOOP) said as what it is. */
function notADirectory(error: unknown, part: string): Error {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOTDIR' || code === 'ELOOP') return new Error(`'${part}' is a symbolic link or not a directory (links are not followed)`);
  return error as Error;
}

/** Without /proc: every part checked with lstat and made when missing (a swap after the check is not caught). */
async function makeDirectoriesChecked(parts: string[]): Promise<void> {
  let current: string = path.sep;
  for (const part of parts) {
    current = path.join(current, part);
    if (await isSymbolicLink(current)) throw new Error(`'${current}' is a symbolic link (links are not followed)`);
    await mkdir(current).catch((made: NodeJS.ErrnoException) => {
      if (made.code !== 'EEXIST') throw made;
    });
  }
}

async function isSymbolicLink(target: string): Promise<boolean> {
  try {
    return (await lstat(target)).isSymbolicLink();
  } catch {
    return false;
  }
}
