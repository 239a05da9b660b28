// Reading a small file that an agent's shell could have replaced, synchronously: a config file read where no await fits.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { byteCount } from '@ptydeck/contract';

/** Why a file was not read: one line, to show after its path. */
export class UntrustedFileError extends Error {
  override readonly name = 'UntrustedFileError';
}

const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * The bytes of `path` when it is a regular file of at most `maxBytes`;
 * undefined when there is none. What sits under the name may be a FIFO (a
 * read that never returns), a link to /dev/zero (one that never ends) or a
 * huge file: it is opened without following a link and without blocking,
 * judged by fstat on what was opened, and read only up to the size fstat
 * gave. The same rules as persist/untrusted-files.ts's async reader, for the
 * config files read synchronously (remotes.json).
 */
export function readUntrustedFileSync(path: string, maxBytes: number): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, READ_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'ELOOP') throw new UntrustedFileError('a symbolic link, not a regular file');
    throw error;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new UntrustedFileError('not a regular file');
    if (stat.size > maxBytes) throw new UntrustedFileError(`${byteCount(stat.size)}, more than the ${byteCount(maxBytes)} it may hold`);
    const data = Buffer.alloc(stat.size);
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
