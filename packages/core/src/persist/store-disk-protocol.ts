/** Messages between the session store (store-disk.ts) and its disk thread (store-disk-worker.ts). */
import type { FileOps } from './file-ops.js';

export type StoreDiskOp = Exclude<keyof FileOps, 'takesArrays'>;

export interface StoreDiskRequest {
  req: number;
  op: StoreDiskOp;
  args: unknown[];
}

export type StoreDiskReply =
  | { req: number; value?: Uint8Array }
  /** `code`: the system error's (ENOENT, say), kept so a caller can tell them apart as it would in this thread. */
  | { req: number; error: { message: string; code?: string } };
