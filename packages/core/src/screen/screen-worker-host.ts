// Runs every session's screen parser in one worker thread, so parsing never delays PTY reads or keystrokes.
import { Worker } from 'node:worker_threads';
import type { ErrorReporter } from '@ptydeck/contract';
import { BufferPool } from '../pty/buffer-pool.js';
import { ScreenMirror, type ScreenMirrorOptions } from './screen-mirror.js';
import type { ScreenReply, ScreenRequest, ScreenTextValue } from './screen-worker-protocol.js';
import { SCREEN_WORKER_URL } from './screen-worker-url.js';
import { ScreenLostError } from './screen-lost-error.js';
import { SHARED_SCROLLBACK_LINES, type MirrorScreen, type SerializedScreen, type WriteMarks } from './mirror-screen.js';
import { ScrollbackShares } from './scrollback-shares.js';


/**
 * Worker deaths after which screens are made in this thread instead: a worker
 * that cannot run (its file missing, a parser bug hit at once by every
 * session's output) must not be restarted in a loop.
 */
const MAX_WORKER_DEATHS = 3;

/**
 * How the screen worker is started. Its young generation is capped: V8 let
 * it grow to 32 MiB under a flood's parsing, which is mostly short-lived
 * garbage a smaller one collects as well (the bench README's "Memory"). 2 MiB
 * (two 1 MiB semi-spaces): a parse's garbage lives for one write of 4 KiB,
 * and what outlives it (a terminal's lines) lives long anyway; 8 MiB held
 * 5 MiB more at figure 5's peak for the same parsing. A host started with
 * HOST_NODE_FLAGS lets the worker have it (letWorkersSizeYoungGeneration).
 */
export const SCREEN_WORKER_OPTIONS = { resourceLimits: { maxYoungGenerationSizeMb: 2 } } as const;

/**
 * The buffers slices for the worker are read into (see sliceBuffer), by the
 * most bytes each takes, and how many of each are kept: the background's
 * 64 KiB slices and a read's catch-up of up to a megabyte (SessionScreen).
 * Each comes back with the worker's answer to its write. A new buffer per
 * slice cost more than the copy into it: a 64 KiB one about 20 us, about
 * what its postMessage costs, and new external memory for V8's next GC.
 */
const SLICE_POOLS = [
  { bytes: 64 * 1024, spare: 4 },
  { bytes: 1024 * 1024, spare: 1 },
] as const;

export interface ScreenWorkerOptions {
  reportError: ErrorReporter;
  /** Starts the worker thread. Default: screen-worker.js in a new Worker. */
  spawn?: () => Worker;
}

interface Pending {
  resolve: (value: SerializedScreen | ScreenTextValue | undefined) => void;
  reject: (error: Error) => void;
}

/**
 * Every session's headless terminal in one worker thread, shared by all
 * sessions: parsing is the costliest thing the core does with output, and on
 * the main thread it delayed PTY reads, socket writes and keystrokes alike.
 * The worker starts with start() or the first screen. If it dies, its screens are lost
 * (their pending writes and reads reject with ScreenLostError and their owners
 * make new ones, fed again from the log) and the next screen starts a new
 * worker; after MAX_WORKER_DEATHS, screens are made in this thread (and
 * parsed lazily there: see ScreenService).
 */
export class ScreenWorker {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  /** The live screens of the current worker. */
  private readonly screens = new Set<RemoteScreen>();
  private nextScreen = 1;
  private nextReq = 1;
  private deaths = 0;
  private disposed = false;
  /** The history budget of screens made in this thread once the worker gave up. */
  private readonly shares = new ScrollbackShares(SHARED_SCROLLBACK_LINES);
  private readonly slicePools = SLICE_POOLS.map(({ bytes, spare }) => new BufferPool(bytes, spare));
  /** Buffers handed out by sliceBuffer: a write of a view of one transfers it instead of a copy. */
  private readonly lent = new WeakSet<ArrayBufferLike>();

  constructor(private readonly options: ScreenWorkerOptions) {}

  /**
   * Starts the worker ahead of the first screen: its start (a thread, an
   * isolate, xterm.js loaded) is slow enough that the first viewer's resync
   * would otherwise wait for it. It happens on the worker's own thread.
   */
  start(): void {
    if (!this.disposed && !this.gaveUp) this.ensureWorker();
  }

  /** The worker died MAX_WORKER_DEATHS times: screens are made in this thread from now on. */
  get gaveUp(): boolean {
    return this.deaths >= MAX_WORKER_DEATHS;
  }

  createScreen(options: ScreenMirrorOptions): MirrorScreen {
    if (this.disposed) throw new Error('the screen worker has been disposed');
    if (this.gaveUp) return new ScreenMirror({ ...options, shares: this.shares });
    const screen = new RemoteScreen(this, this.nextScreen++, options.cols, options.rows);
    this.screens.add(screen);
    this.post({ type: 'open', screen: screen.handle, cols: options.cols, rows: options.rows, scrollback: options.scrollback ?? 1000 });
    return screen;
  }

  /** Terminates the worker; its screens are lost. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    const worker = this.worker;
    this.worker = undefined;
    this.loseAll(new ScreenLostError('the screen worker was disposed', true));
    await worker?.terminate();
  }

  /**
   * A buffer of at least `maxBytes` to read a slice into for a screen of
   * this worker, or undefined when none is pooled for that size. A write of
   * a view at its start hands the buffer to the worker, which gives it back
   * with its answer.
   */
  sliceBuffer(maxBytes: number): Uint8Array | undefined {
    const pool = this.slicePools.find((p) => p.size >= maxBytes);
    if (!pool || this.gaveUp) return undefined;
    const buffer = pool.take();
    this.lent.add(buffer.buffer);
    return buffer;
  }

  /** @internal Whether `buffer` came from sliceBuffer(), so a write may transfer it whole. */
  lends(buffer: ArrayBufferLike): boolean {
    return this.lent.has(buffer);
  }

  /** @internal RemoteScreen's channel: a request and its answer. */
  request(message: ScreenRequest & { req: number }, transfer?: ArrayBuffer[]): Promise<SerializedScreen | ScreenTextValue | undefined> {
    return new Promise((resolve, reject) => {
      this.pending.set(message.req, { resolve, reject });
      this.post(message, transfer);
    });
  }

  /** Resolves once the worker's warm-up is over (started with it; a diagnostic, for bench figure 6). */
  async warmedUp(): Promise<void> {
    await this.request({ type: 'warmed', req: this.newRequest() });
  }

  /** @internal */
  newRequest(): number {
    return this.nextReq++;
  }

  /** @internal */
  post(message: ScreenRequest, transfer?: ArrayBuffer[]): void {
    this.ensureWorker().postMessage(message, transfer);
  }

  /** @internal A screen is disposed: the worker drops its terminal. */
  closed(screen: RemoteScreen): void {
    if (!this.screens.delete(screen)) return;
    this.worker?.postMessage({ type: 'close', screen: screen.handle } satisfies ScreenRequest);
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = this.options.spawn ? this.options.spawn() : new Worker(SCREEN_WORKER_URL, SCREEN_WORKER_OPTIONS);
    // Parsing for a server that is otherwise done must not keep its process alive.
    worker.unref();
    let failure: Error | undefined;
    worker.on('message', (reply: ScreenReply) => this.onReply(reply));
    worker.on('error', (error) => {
      failure = error;
    });
    worker.on('exit', (code) => {
      if (this.worker !== worker) return; // disposed, or already replaced
      this.worker = undefined;
      this.deaths++;
      const reason = failure ?? new Error(`the screen worker exited with code ${code}`);
      const next = this.gaveUp ? 'screens are parsed on the main thread from now on' : 'screens are parsed again from their logs in a new worker';
      this.options.reportError(reason, `the screen worker stopped (${this.deaths} of ${MAX_WORKER_DEATHS}); ${next}`);
      this.loseAll(new ScreenLostError(`the screen worker stopped: ${reason.message}`));
    });
    this.worker = worker;
    return worker;
  }

  private onReply(reply: ScreenReply): void {
    if (reply.type === 'done' && reply.buffer) {
      const buffer = new Uint8Array(reply.buffer);
      this.slicePools.find((p) => p.size === buffer.byteLength)?.give(buffer);
    }
    const pending = this.pending.get(reply.req);
    if (!pending) return;
    this.pending.delete(reply.req);
    if (reply.type === 'done') pending.resolve(reply.value);
    else pending.reject(new Error(reply.message));
  }

  private loseAll(error: ScreenLostError): void {
    for (const screen of this.screens) screen.markLost();
    this.screens.clear();
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) p.reject(error);
  }
}

/** A session's terminal in the screen worker, as the main thread sees it. */
class RemoteScreen implements MirrorScreen {
  private isLost = false;
  private disposed = false;

  constructor(
    private readonly host: ScreenWorker,
    readonly handle: number,
    public cols: number,
    public rows: number,
  ) {}

  get lost(): boolean {
    return this.isLost;
  }

  /** The worker serves each screen's requests one after another, in the order posted. */
  get readsFollowWrites(): boolean {
    return true;
  }

  /**
   * Hands `data` to the worker without copying it when `data` owns its whole
   * buffer, as a log read's copy does (PtyService.read), or starts one from
   * ScreenWorker.sliceBuffer: the buffer moves to the worker (which gives it
   * back with its answer) and `data` is left empty.
   */
  write(data: Uint8Array, marks?: WriteMarks, background = false): Promise<void> {
    return this.send(data, false, marks, background);
  }

  skim(data: Uint8Array): Promise<void> {
    return this.send(data, true);
  }

  private async send(data: Uint8Array, skim: boolean, marks?: WriteMarks, background = false): Promise<void> {
    if (this.isLost) throw new ScreenLostError('the screen worker stopped');
    const owned = data.byteOffset === 0 && data.buffer instanceof ArrayBuffer && (data.byteLength === data.buffer.byteLength || this.host.lends(data.buffer));
    const payload = owned ? data : data.slice();
    const req = this.host.newRequest();
    await this.host.request({ type: 'write', screen: this.handle, req, data: payload, skim, ...(marks && marks.cursors.length > 0 ? { marks } : {}), ...(background ? { background } : {}) }, [
      payload.buffer as ArrayBuffer,
    ]);
  }

  resize(cols: number, rows: number): void {
    this.cols = cols;
    this.rows = rows;
    if (!this.isLost && !this.disposed) this.host.post({ type: 'resize', screen: this.handle, cols, rows });
  }

  freeze(): void {
    if (!this.isLost && !this.disposed) this.host.post({ type: 'freeze', screen: this.handle });
  }

  async snapshot(scrollback: number): Promise<SerializedScreen> {
    if (this.isLost) throw new ScreenLostError('the screen worker stopped');
    return (await this.host.request({ type: 'snapshot', screen: this.handle, req: this.host.newRequest(), scrollback })) as SerializedScreen;
  }

  async text(): Promise<ScreenTextValue> {
    if (this.isLost) throw new ScreenLostError('the screen worker stopped');
    return (await this.host.request({ type: 'text', screen: this.handle, req: this.host.newRequest() })) as ScreenTextValue;
  }

  markLost(): void {
    this.isLost = true;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.host.closed(this);
  }
}
