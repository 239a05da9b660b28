// Random bytes from the kernel's random source, without loading node:crypto.
import { closeSync, openSync, readSync } from 'node:fs';
import { nodeCrypto } from './lazy-builtins.js';

/**
 * `count` random bytes as hex, read from /dev/urandom (the kernel's source,
 * which node:crypto seeds from too), or from node:crypto where there is none.
 * Loading node:crypto loads node:stream and a dozen modules of its own: a
 * tenth of `ptydeck ls`'s start, for 32 bytes (bench figure 12).
 */
export function randomHex(count: number): string {
  return kernelRandomBytes(count).toString('hex');
}

/** `count` random bytes, as randomHex reads them. */
export function kernelRandomBytes(count: number): Buffer {
  const bytes = Buffer.alloc(count);
  let fd: number | undefined;
  try {
    fd = openSync('/dev/urandom', 'r');
    for (let filled = 0; filled < count; ) {
      const read = readSync(fd, bytes, filled, count - filled, null);
      if (read === 0) throw new Error('/dev/urandom ended');
      filled += read;
    }
    return bytes;
  } catch {
    return nodeCrypto().randomBytes(count);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
