/**
 * Replacing a file whole, as the session store and `ptydeck export` do: a new
 * file (0600, `wx`: never through a link or over another's file) beside the
 * target, renamed over it. Asynchronous, so a megabyte never holds the event loop.
 */
import { open, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { randomHex } from './random-hex.js';

const FILE_MODE = 0o600;

/**
 * Replaces `target` whole: a reader (or a kill) sees the old file or the new one, never half of one. A link at
 * `target` is replaced, not written through. The new file is `.<name>.<hex>` (the store's TEMP_PREFIX: its
 * loader removes the half-written ones a kill leaves).
 */
export async function writeAtomically(target: string, data: Uint8Array | string | readonly Uint8Array[]): Promise<void> {
  const temp = join(dirname(target), `.${basename(target)}.${randomHex(4)}`);
  try {
    if (Array.isArray(data)) await writeAll(temp, data);
    else await writeFile(temp, data as Uint8Array | string, { mode: FILE_MODE, flag: 'wx' });
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** A new file (`wx`, as writeFile above) holding `parts` one after another. */
async function writeAll(path: string, parts: readonly Uint8Array[]): Promise<void> {
  const handle = await open(path, 'wx', FILE_MODE);
  try {
    let rest = parts.filter((part) => part.length > 0);
    while (rest.length > 0) {
      // writev may write less than asked (as write may): the rest goes in the next call.
      let { bytesWritten } = await handle.writev(rest as Uint8Array[]);
      if (bytesWritten === 0) throw new Error(`no byte of ${path} was written`);
      while (rest.length > 0 && bytesWritten >= rest[0]!.length) bytesWritten -= rest.shift()!.length;
      if (rest.length > 0 && bytesWritten > 0) rest[0] = rest[0]!.subarray(bytesWritten);
    }
  } finally {
    await handle.close();
  }
}
