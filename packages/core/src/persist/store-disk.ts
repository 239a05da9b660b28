/**
 * The session store's files, written by a thread of their own (store-disk-worker.ts)
 * in synchronous calls. Through libuv's thread pool each system call of a write
 * was a round trip that woke the pool and then the event loop: the store's
 * three to eleven per session and turn cost about twice the CPU of the calls
 * themselves, and the main thread's share of it came out of a flood's turns
 * (bench figure 10; bench/README.md, "The store's disk thread"). Here an
 * operation is one message each way. A thread that cannot start, or dies,
 * leaves the rest to the pool: what it was doing fails as a write that failed
 * (the store starts that file over).
 */
import { Worker } from 'node:worker_threads';
import { STORE_DISK_URL } from './store-disk-url.js';
import { poolOps, type FileOps } from './file-ops.js';
import type { StoreDiskOp, StoreDiskReply } from './store-disk-protocol.js';

/** The thread holds a few MiB of writes at a time, in buffers outside its heap. */
const DISK_THREAD_LIMITS = { resourceLimits: { maxYoungGenerationSizeMb: 4 } } as const;

export interface StoreDisk extends FileOps {
  /** Ends the thread once what was asked is done. */
  close(): void;
}

/** A disk thread, started on the first operation. `spawn`: for tests, a thread of their own making. */
export function openStoreDisk(spawn: () => Worker = () => new Worker(STORE_DISK_URL, DISK_THREAD_LIMITS)): StoreDisk {
  return new ThreadDisk(spawn);
}

interface Pending {
  resolve(value: Uint8Array | undefined): void;
  reject(error: Error): void;
}

class ThreadDisk implements StoreDisk {
  readonly takesArrays = true;
  private worker: Worker | undefined;
  /** The thread could not start or died: the pool does the rest. */
  private gone = false;
  private closing = false;
  private nextReq = 0;
  private readonly pending = new Map<number, Pending>();

  constructor(private readonly spawn: () => Worker) {}

  replace(path: string, data: string | readonly Uint8Array[]): Promise<void> {
    if (this.gone) return poolOps.replace(path, data);
    const parts = typeof data === 'string' ? data : data.map(handedOver);
    return this.call('replace', [path, parts], typeof parts === 'string' ? [] : parts.map((part) => part.buffer as ArrayBuffer)).then(() => {});
  }

  writeAt(path: string, position: number, data: Uint8Array): Promise<void> {
    if (this.gone) return poolOps.writeAt(path, position, data);
    const own = handedOver(data);
    return this.call('writeAt', [path, position, own], [own.buffer as ArrayBuffer]).then(() => {});
  }

  async readAt(path: string, position: number, bytes: number): Promise<Uint8Array> {
    if (this.gone) return poolOps.readAt(path, position, bytes);
    return (await this.call('readAt', [path, position, bytes])) ?? new Uint8Array(0);
  }

  remove(paths: readonly string[]): Promise<void> {
    return this.gone ? poolOps.remove(paths) : this.call('remove', [paths]).then(() => {});
  }

  close(): void {
    this.closing = true;
    if (this.pending.size === 0) this.end();
  }

  private call(op: StoreDiskOp, args: unknown[], transfer: ArrayBuffer[] = []): Promise<Uint8Array | undefined> {
    const worker = this.thread();
    if (!worker) return Promise.reject(new Error('the session store has no disk thread'));
    const req = this.nextReq++;
    return new Promise((resolve, reject) => {
      this.pending.set(req, { resolve, reject });
      // While something is asked the thread keeps the process alive, as the pool's requests do: a graceful
      // stop awaits the store's flush with nothing else left to run.
      if (this.pending.size === 1) worker.ref();
      worker.postMessage({ req, op, args }, transfer);
    });
  }

  private thread(): Worker | undefined {
    if (this.worker || this.gone) return this.worker;
    try {
      const worker = this.spawn();
      worker.on('message', (reply: StoreDiskReply) => this.receive(reply));
      worker.on('error', () => this.die());
      worker.on('exit', () => this.die());
      worker.unref();
      this.worker = worker;
    } catch {
      this.gone = true;
    }
    return this.worker;
  }

  private receive(reply: StoreDiskReply): void {
    const waiter = this.pending.get(reply.req);
    if (!waiter) return;
    this.pending.delete(reply.req);
    if (this.pending.size === 0) {
      this.worker?.unref();
      if (this.closing) this.end();
    }
    if ('error' in reply) waiter.reject(Object.assign(new Error(reply.error.message), reply.error.code ? { code: reply.error.code } : {}));
    else waiter.resolve(reply.value);
  }

  private die(): void {
    if (this.gone) return;
    this.gone = true;
    this.worker = undefined;
    const waiters = [...this.pending.values()];
    this.pending.clear();
    for (const waiter of waiters) waiter.reject(new Error("the session store's disk thread ended before it wrote"));
  }

  private end(): void {
    const worker = this.worker;
    this.gone = true;
    this.worker = undefined;
    void worker?.terminate();
  }
}

/**
 * `data` as an array that owns its whole buffer, to transfer: itself when it does (the caller gave it
 * up, see takesArrays), else a copy. A view's buffer, transferred, would take the rest of it along (a
 * header out of Node's pool, say), and cloned it would be copied whole.
 */
function handedOver(data: Uint8Array): Uint8Array {
  const whole = data.byteOffset === 0 && data.byteLength === data.buffer.byteLength && data.buffer instanceof ArrayBuffer;
  return whole ? data : data.slice();
}
