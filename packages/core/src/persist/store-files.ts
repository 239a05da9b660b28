/**
 * The store's disk operations, all asynchronous (libuv's thread pool does the
 * work, so a megabyte written never holds the event loop) and all creating
 * files 0600: what a session printed may hold secrets.
 */
import { open, rm } from 'node:fs/promises';
import { writeAtomically } from '../common/atomic-write.js';
import { HEADER_BYTES, metaPath, outputHeader, outputPath, timelinePath } from './store-format.js';

/** A new output file holding `data`, whose first byte is at cursor `start` (header and data in one writev: a megabyte is not copied to join them). */
export function rewriteOutput(dir: string, id: string, start: number, data: Uint8Array): Promise<void> {
  return writeAtomically(outputPath(dir, id), [outputHeader(start), data]);
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
