/**
 * The store's disk operations, all asynchronous (libuv's thread pool does the
 * work, so a megabyte written never holds the event loop) and all creating
 * files 0600: what a session printed may hold secrets.
 */
import { randomBytes } from 'node:crypto';
import { open, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { HEADER_BYTES, metaPath, outputHeader, outputPath, TEMP_PREFIX, timelinePath } from './store-format.js';

const FILE_MODE = 0o600;

/** Replaces `target` whole: a reader (or a kill) sees the old file or the new one, never half of one. */
export async function writeAtomically(target: string, data: Uint8Array | string | readonly Uint8Array[]): Promise<void> {
  const temp = join(dirname(target), `${TEMP_PREFIX}${basename(target)}.${randomBytes(4).toString('hex')}`);
  try {
    if (Array.isArray(data)) await writeAll(temp, data);
    else await writeFile(temp, data as Uint8Array | string, { mode: FILE_MODE, flag: 'wx' });
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** A new output file holding `data`, whose first byte is at cursor `start` (header and data in one writev: a megabyte is not copied to join them). */
export function rewriteOutput(dir: string, id: string, start: number, data: Uint8Array): Promise<void> {
  return writeAtomically(outputPath(dir, id), [outputHeader(start), data]);
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
 * Writes `data` after the output file's first `length` bytes: at a position, not appended, so a
 * write torn by an error is overwritten by the next one; and into an existing file only (one
 * removed behind the store's back fails, and is started over with its header).
 */
export async function appendOutput(dir: string, id: string, length: number, data: Uint8Array): Promise<void> {
  const handle = await open(outputPath(dir, id), 'r+');
  try {
    await handle.write(data, 0, data.length, HEADER_BYTES + length);
  } finally {
    await handle.close();
  }
}

/** The output file's last `bytes` bytes (of the `length` after its header). */
export async function readOutputTail(dir: string, id: string, length: number, bytes: number): Promise<Buffer> {
  const handle = await open(outputPath(dir, id), 'r');
  try {
    const tail = Buffer.alloc(Math.min(bytes, length));
    const { bytesRead } = await handle.read(tail, 0, tail.length, HEADER_BYTES + length - tail.length);
    return tail.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

export async function removeSessionFiles(dir: string, id: string): Promise<void> {
  await Promise.all([rm(metaPath(dir, id), { force: true }), rm(outputPath(dir, id), { force: true }), rm(timelinePath(dir, id), { force: true })]);
}
