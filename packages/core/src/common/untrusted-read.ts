// Reading a small file that an agent's shell could have written: one set of rules, a sync face and an async one.
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import { byteCount } from '@ptydeck/contract';

/**
 * Anything running as the developer can write the state directory, the
 * session store and the config directory (an agent's shell included, unless a
 * sandbox hides them), so what sits under a name of ours may be a FIFO (an
 * open or a read that never returns), a link to /dev/zero (a read that never
 * ends), a directory, or a file of any size. The rules, for both faces: open
 * without following a link and without blocking; judge by fstat what was
 * opened (not the name, which may be swapped meanwhile); read only a regular
 * file of at most `maxBytes`, and only the size fstat gave (a file that grows
 * while it is read is read as it was). The sync face serves config files read
 * where no await fits (remotes.json), the async one the session store.
 */

/** Why a file was not read: one line, to show after its path. */
export class UntrustedFileError extends Error {
  override readonly name = 'UntrustedFileError';

  /** `size`: a regular file refused for its size alone, this many bytes. */
  constructor(
    message: string,
    readonly size?: number,
  ) {
    super(message);
  }
}

const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

export interface UntrustedReadOptions {
  /**
   * Open the file a link at the name leads to, as an editor does (an ACP agent's read of a source file), rather
   * than refusing the link; what was opened is still judged by its fstat.
   */
  followLinks?: boolean;
}

/** The file's bytes, or undefined when there is none; UntrustedFileError when the rules refuse it. */
export function readUntrustedFileSync(path: string, maxBytes: number): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, READ_FLAGS);
  } catch (error) {
    return noFile(error);
  }
  try {
    const data = Buffer.alloc(sizeToRead(fstatSync(fd), maxBytes));
    let filled = 0;
    while (filled < data.length) {
      const read = readSync(fd, data, filled, data.length - filled, filled);
      if (read === 0) break;
      filled += read;
    }
    return data.subarray(0, filled);
  } finally {
    closeSync(fd);
  }
}

/** readUntrustedFileSync's rules, without blocking the thread. */
export async function readUntrustedFile(path: string, maxBytes: number, { followLinks = false }: UntrustedReadOptions = {}): Promise<Buffer | undefined> {
  let handle;
  try {
    handle = await open(path, followLinks ? READ_FLAGS & ~constants.O_NOFOLLOW : READ_FLAGS);
  } catch (error) {
    return noFile(error);
  }
  try {
    const data = Buffer.alloc(sizeToRead(await handle.stat(), maxBytes));
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

/** An open's failure: undefined where there is no file; the refusal where a link is; anything else as it came. */
function noFile(error: unknown): undefined {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return undefined;
  // O_NOFOLLOW's answer for a link (where it points is not ours to read).
  if (code === 'ELOOP') throw new UntrustedFileError('a symbolic link, not a regular file');
  // What a read-only open of a Unix socket (or of a device with no driver) answers.
  if (code === 'ENXIO') throw new UntrustedFileError('not a regular file (a socket or a device)');
  throw error;
}

/** How many bytes to read of what was opened, judged by its fstat; UntrustedFileError when it may not be read. */
function sizeToRead(stat: Stats, maxBytes: number): number {
  if (!stat.isFile()) throw new UntrustedFileError(`not a regular file (${kindOf(stat)})`);
  if (stat.size > maxBytes) throw new UntrustedFileError(`${byteCount(stat.size)}, more than the ${byteCount(maxBytes)} such a file may hold`, stat.size);
  return stat.size;
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
