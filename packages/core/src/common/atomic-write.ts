/**
 * Replacing a file whole, as the session store and `ptydeck export` do: a new
 * file (0600, `wx`: never through a link or over another's file) beside the
 * target, renamed over it. Asynchronous, so a megabyte never holds the event loop.
 */
import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
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

/**
 * writeAtomically's twin for a thread that may block (the session store's disk thread,
 * persist/store-disk-worker.ts): the same file, mode and rename, in system calls without the thread
 * pool's round trip per call, which cost the store about twice the CPU of the calls themselves.
 */
export function writeAtomicallySync(target: string, data: Uint8Array | string | readonly Uint8Array[]): void {
  const temp = join(dirname(target), `.${basename(target)}.${randomHex(4)}`);
  try {
    const fd = openSync(temp, 'wx', FILE_MODE);
    try {
      for (const part of typeof data === 'string' ? [Buffer.from(data)] : Array.isArray(data) ? data : [data as Uint8Array]) {
        // writeSync may write less than asked: the rest goes in the next call.
        for (let at = 0; at < part.length; ) {
          const written = writeSync(fd, part, at, part.length - at);
          if (written === 0) throw new Error(`no byte of ${temp} was written`);
          at += written;
        }
      }
    } finally {
      closeSync(fd);
    }
    renameSync(temp, target);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
}
