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
export async function writeAtomically(target: string, data: Uint8Array | string): Promise<void> {
  const temp = join(dirname(target), `${TEMP_PREFIX}${basename(target)}.${randomBytes(4).toString('hex')}`);
  try {
    await writeFile(temp, data, { mode: FILE_MODE, flag: 'wx' });
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** A new output file holding `data`, whose first byte is at cursor `start`. */
export function rewriteOutput(dir: string, id: string, start: number, data: Uint8Array): Promise<void> {
  return writeAtomically(outputPath(dir, id), Buffer.concat([outputHeader(start), data]));
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
