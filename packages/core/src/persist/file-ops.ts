/**
 * The few file operations the session store makes, on paths alone (no
 * formats, so the disk thread loads nothing else), all creating files 0600:
 * what a session printed may hold secrets. Each comes twice: asynchronous
 * (libuv's thread pool does the work, so a megabyte written never holds the
 * event loop), the fallback; and synchronous, for the store's disk thread
 * (store-disk-worker.ts), where blocking holds nothing and a call costs no
 * round trip through the pool.
 */
import { closeSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { writeAtomically, writeAtomicallySync } from '../common/atomic-write.js';

export interface FileOps {
  /**
   * Whether a write takes the arrays it is given (their memory goes to the disk thread, leaving them
   * empty): the caller then hands it arrays of their own, never a buffer it fills again.
   */
  readonly takesArrays: boolean;
  /** writeAtomically: the file replaced whole by `data` (its parts one after another). */
  replace(path: string, data: string | readonly Uint8Array[]): Promise<void>;
  /**
   * `data` at `position` of an existing file: at a position, not appended, so a write torn by an error
   * is overwritten by the next one; a file removed behind the store's back fails.
   */
  writeAt(path: string, position: number, data: Uint8Array): Promise<void>;
  /** Up to `bytes` bytes from `position`. */
  readAt(path: string, position: number, bytes: number): Promise<Uint8Array>;
  /** The files gone, those already gone too. */
  remove(paths: readonly string[]): Promise<void>;
}

/** The operations in libuv's thread pool. */
export const poolOps: FileOps = {
  takesArrays: false,
  replace: writeAtomically,
  async writeAt(path, position, data) {
    const handle = await open(path, 'r+');
    try {
      await handle.write(data, 0, data.length, position);
    } finally {
      await handle.close();
    }
  },
  async readAt(path, position, bytes) {
    const handle = await open(path, 'r');
    try {
      const buffer = Buffer.alloc(bytes);
      const { bytesRead } = await handle.read(buffer, 0, bytes, position);
      return buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  },
  async remove(paths) {
    await Promise.all(paths.map((path) => rm(path, { force: true })));
  },
};

/** The same operations, synchronous: for the disk thread only. */
export const syncOps = {
  replace: (path: string, data: string | readonly Uint8Array[]): void => writeAtomicallySync(path, data),
  writeAt(path: string, position: number, data: Uint8Array): void {
    const fd = openSync(path, 'r+');
    try {
      for (let at = 0; at < data.length; ) {
        const written = writeSync(fd, data, at, data.length - at, position + at);
        if (written === 0) throw new Error(`no byte of ${path} was written`);
        at += written;
      }
    } finally {
      closeSync(fd);
    }
  },
  readAt(path: string, position: number, bytes: number): Uint8Array {
    const fd = openSync(path, 'r');
    try {
      const buffer = new Uint8Array(bytes);
      const read = readSync(fd, buffer, 0, bytes, position);
      return read === bytes ? buffer : buffer.slice(0, read);
    } finally {
      closeSync(fd);
    }
  },
  remove(paths: readonly string[]): void {
    for (const path of paths) rmSync(path, { force: true });
  },
} satisfies { [K in Exclude<keyof FileOps, 'takesArrays'>]: (...args: Parameters<FileOps[K]>) => Awaited<ReturnType<FileOps[K]>> };
