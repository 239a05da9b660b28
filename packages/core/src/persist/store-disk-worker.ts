/**
 * The session store's disk thread: runs the store's file operations
 * (file-ops.ts, synchronous) one after another, in the order asked. Here a
 * blocking call holds nothing the developer waits for, and an operation (an
 * atomic replacement is open, write, close and rename) costs one message each
 * way instead of a round trip through libuv's thread pool per system call.
 */
import { parentPort } from 'node:worker_threads';
import { syncOps } from './file-ops.js';
import type { StoreDiskReply, StoreDiskRequest } from './store-disk-protocol.js';

const port = parentPort;
if (!port) throw new Error('store-disk-worker.js runs as a worker thread (new Worker), not as a script');

port.on('message', ({ req, op, args }: StoreDiskRequest) => {
  let reply: StoreDiskReply;
  try {
    const value = (syncOps[op] as (...args: unknown[]) => Uint8Array | void)(...args);
    reply = value ? { req, value } : { req };
  } catch (error) {
    const { message, code } = error as NodeJS.ErrnoException;
    reply = { req, error: { message: String(message), ...(code ? { code } : {}) } };
  }
  port.postMessage(reply);
});
