/**
 * The store's disk operations on a session's files, through FileOps (the
 * store's disk thread, or libuv's pool): file-ops.ts says how they are made.
 */
import { HEADER_BYTES, metaPath, outputHeader, outputPath, timelinePath } from './store-format.js';
import { poolOps, type FileOps } from './file-ops.js';

export class StoreFiles {
  constructor(private readonly ops: FileOps) {}

  /** Whether the writes take the arrays they are given (FileOps.takesArrays): no scratch buffer then. */
  get takesArrays(): boolean {
    return this.ops.takesArrays;
  }

  /** writeAtomically, for the metadata, timeline and closed records. */
  replace(path: string, text: string): Promise<void> {
    return this.ops.replace(path, text);
  }

  /** A new output file holding `data`, whose first byte is at cursor `start` (header and data written together: a megabyte is not copied to join them). */
  rewriteOutput(dir: string, id: string, start: number, data: Uint8Array): Promise<void> {
    return this.ops.replace(outputPath(dir, id), [outputHeader(start), data]);
  }

  /** Writes `data` after the output file's first `length` bytes (FileOps.writeAt: into an existing file only). */
  appendOutput(dir: string, id: string, length: number, data: Uint8Array): Promise<void> {
    return this.ops.writeAt(outputPath(dir, id), HEADER_BYTES + length, data);
  }

  /** The output file's last `bytes` bytes (of the `length` after its header). */
  readOutputTail(dir: string, id: string, length: number, bytes: number): Promise<Uint8Array> {
    const size = Math.min(bytes, length);
    return this.ops.readAt(outputPath(dir, id), HEADER_BYTES + length - size, size);
  }

  removeSessionFiles(dir: string, id: string): Promise<void> {
    return this.ops.remove([metaPath(dir, id), outputPath(dir, id), timelinePath(dir, id)]);
  }
}

/** The session files through libuv's pool. */
export const poolFiles = new StoreFiles(poolOps);
