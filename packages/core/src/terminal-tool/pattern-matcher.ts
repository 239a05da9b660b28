// Matches agents' regular expressions over terminal output off the event loop, each within a deadline.
import { Worker } from 'node:worker_threads';
import { runsInLinearTime } from './pattern-safety.js';

/**
 * Text length times pattern length up to which a linear pattern
 * (runsInLinearTime) is matched on the loop: a few milliseconds at worst,
 * less than a round trip to the worker costs the host.
 */
const ON_LOOP_STEPS = 1 << 22;

/**
 * The worker: one RegExp at a time, the last one kept compiled (a wait sends
 * the same pattern with each new piece of output). Evaluated, not loaded from
 * a file of its own, so neither the bundle nor the tests need an entry for it.
 */
const MATCHER_SOURCE = `
const { parentPort } = require('node:worker_threads');
let last = null;
parentPort.on('message', ({ source, flags, text }) => {
  try {
    if (last === null || last.source !== source || last.flags !== flags) last = new RegExp(source, flags);
    const found = last.exec(text);
    parentPort.postMessage({ found: found === null ? null : found[0] });
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message) });
  }
});
`;

/** Matching ran past its deadline (or exhausted the worker): the pattern costs too much on this text. */
export class PatternTooCostlyError extends Error {
  override readonly name = 'PatternTooCostlyError';
}

interface Job {
  regex: RegExp;
  text: string;
  budgetMs: number;
  signal: AbortSignal | undefined;
  resolve: (found: string | null) => void;
  reject: (error: Error) => void;
  onAbort: () => void;
}

/**
 * Matches regular expressions the host did not write. V8 runs a match to its
 * end on the calling thread, and a pattern with nested quantifiers over
 * crafted output backtracks for minutes: on the host's loop that froze every
 * session (a 500 ms budget per match still took eight parallel waits' worth
 * of keystroke echo to seconds). So only patterns whose cost is bounded by
 * the text times the pattern run here (runsInLinearTime); every other match
 * runs in one long-lived worker thread, one at a time, and a match past its
 * budget has the worker terminated (and a new one started for the next),
 * which stops V8 mid-backtrack. The loop only posts the text and reads the
 * answer. The budget counts from when the job reaches a running worker, not
 * while it queues or the worker starts.
 */
export class PatternMatcher {
  private worker: Worker | null = null;
  private online = false;
  private readonly queue: Job[] = [];
  private current: { job: Job; timer: NodeJS.Timeout } | null = null;
  private disposed = false;

  /**
   * The text `regex` matches first in `text` (null: none). Rejects with
   * PatternTooCostlyError past `budgetMs` of matching, and with the signal's
   * reason once it aborts (a queued job is dropped, a running one stopped).
   */
  match(regex: RegExp, text: string, budgetMs: number, signal?: AbortSignal): Promise<string | null> {
    if (this.disposed) return Promise.reject(new Error('the pattern matcher was disposed'));
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    if (runsInLinearTime(regex.source) && text.length * Math.max(1, regex.source.length) <= ON_LOOP_STEPS) {
      return Promise.resolve(regex.exec(text)?.[0] ?? null);
    }
    return new Promise((resolve, reject) => {
      const job: Job = { regex, text, budgetMs, signal, resolve, reject, onAbort: () => this.aborted(job) };
      this.queue.push(job);
      signal?.addEventListener('abort', job.onAbort, { once: true });
      this.pump();
    });
  }

  dispose(): void {
    this.disposed = true;
    this.stopWorker();
    this.failAll(new Error('the pattern matcher was disposed'));
  }

  /** A job's signal aborted: a queued job is dropped, a running one stopped with its worker. */
  private aborted(job: Job): void {
    const reason = job.signal!.reason as Error;
    if (this.current?.job === job) {
      this.stopWorker();
      this.finish(() => job.reject(reason));
      return;
    }
    const index = this.queue.indexOf(job);
    if (index < 0) return;
    this.queue.splice(index, 1);
    this.settle(job, () => job.reject(reason));
  }

  private pump(): void {
    if (this.current || this.disposed || this.queue.length === 0) return;
    if (!this.worker) {
      try {
        this.startWorker();
      } catch (error) {
        // No thread to match in: never match on the loop instead.
        return this.failAll(error as Error);
      }
    }
    if (!this.online) return;
    const job = this.queue.shift()!;
    const timer = setTimeout(() => {
      // Terminating is what stops V8: the thread's backtracking never yields to anything else.
      this.stopWorker();
      this.finish(() => job.reject(new PatternTooCostlyError(`matching took longer than ${job.budgetMs} ms`)));
    }, job.budgetMs);
    this.current = { job, timer };
    this.worker!.postMessage({ source: job.regex.source, flags: job.regex.flags, text: job.text });
  }

  /** Settles the running job and moves on to the next. */
  private finish(settle: () => void): void {
    const current = this.current;
    if (!current) return;
    this.current = null;
    clearTimeout(current.timer);
    this.settle(current.job, settle);
    this.pump();
  }

  private settle(job: Job, settle: () => void): void {
    job.signal?.removeEventListener('abort', job.onAbort);
    settle();
  }

  private failAll(error: Error): void {
    if (this.current) {
      const { job, timer } = this.current;
      this.current = null;
      clearTimeout(timer);
      this.settle(job, () => job.reject(error));
    }
    for (const job of this.queue.splice(0)) this.settle(job, () => job.reject(error));
  }

  private startWorker(): void {
    const worker = new Worker(MATCHER_SOURCE, { eval: true, resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 8 } });
    // Matching for a host that is otherwise done must not keep its process alive.
    worker.unref();
    let failure: Error | undefined;
    worker.on('online', () => {
      if (this.worker !== worker) return;
      this.online = true;
      this.pump();
    });
    worker.on('message', (reply: { found?: string | null; error?: string }) => {
      if (this.worker !== worker) return;
      const job = this.current?.job;
      if (job) this.finish(() => (reply.error === undefined ? job.resolve(reply.found ?? null) : job.reject(new Error(reply.error))));
    });
    worker.on('error', (error) => {
      failure = error;
    });
    worker.on('exit', (code) => {
      if (this.worker !== worker) return; // terminated on purpose, or disposed
      const wasOnline = this.online;
      this.worker = null;
      this.online = false;
      // Out of memory, most likely: what the pattern made of the text did not fit.
      const reason = new PatternTooCostlyError(`the matching thread stopped (${failure?.message ?? `exit code ${code}`})`);
      // A thread that never came up would fail the same way again: fail what waits rather than start one after another.
      if (!wasOnline) return this.failAll(new Error(`the matching thread could not start (${failure?.message ?? `exit code ${code}`})`));
      const job = this.current?.job;
      if (job) this.finish(() => job.reject(reason));
      else this.pump();
    });
    this.worker = worker;
    this.online = false;
  }

  private stopWorker(): void {
    const worker = this.worker;
    this.worker = null;
    this.online = false;
    worker?.terminate().catch(() => undefined);
  }
}
