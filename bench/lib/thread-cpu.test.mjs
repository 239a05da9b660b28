import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { threadSplit, threadTimes } from './thread-cpu.mjs';

const linux = process.platform === 'linux';

describe('threadSplit', () => {
  it('puts the main thread (tid = pid) first and the others busiest first, from zero for a new one', () => {
    const before = {
      10: { cpuMs: 100, queuedMs: 7, voluntary: 5, forced: 1, userMs: 60, systemMs: 40, reads: 100 },
      11: { cpuMs: 50, queuedMs: 1, voluntary: 0, forced: 0, userMs: 50, systemMs: 0, reads: 0 },
      12: { cpuMs: 20, queuedMs: 3, voluntary: 2, forced: 2, userMs: 10, systemMs: 10, reads: 40 },
    };
    const after = {
      10: { cpuMs: 130, queuedMs: 9, voluntary: 9, forced: 1, userMs: 80, systemMs: 50, reads: 103 },
      11: { cpuMs: 51, queuedMs: 1, voluntary: 1, forced: 0, userMs: 50, systemMs: 0, reads: 0 },
      12: { cpuMs: 80, queuedMs: 13, voluntary: 12, forced: 7, userMs: 20, systemMs: 60, reads: 290 },
      13: { cpuMs: 4, queuedMs: 2, voluntary: 1, forced: 0, userMs: 0, systemMs: 0, reads: 2 },
    };
    const split = threadSplit(10, before, after);
    expect(split.main).toEqual({ cpuMs: 30, queuedMs: 2, voluntary: 4, forced: 0, userMs: 20, systemMs: 10, reads: 3 });
    expect(split.others).toEqual([
      { cpuMs: 60, queuedMs: 10, voluntary: 10, forced: 5, userMs: 10, systemMs: 50, reads: 250 },
      { cpuMs: 4, queuedMs: 2, voluntary: 1, forced: 0, userMs: 0, systemMs: 0, reads: 2 },
      { cpuMs: 1, queuedMs: 0, voluntary: 1, forced: 0, userMs: 0, systemMs: 0, reads: 0 },
    ]);
  });
});

describe.runIf(linux)('threadTimes', () => {
  it("reads this process's threads, the main thread's CPU growing with its own work and a busy worker's apart from it", async () => {
    const before = threadTimes();
    expect(before[String(process.pid)]).toBeDefined();
    // A worker that spins until told to stop: the busiest thread other than main.
    // Slot 0: told to stop; slot 1: the worker's own count, so the test knows it ran (under load it may wait).
    const stop = new Int32Array(new SharedArrayBuffer(8));
    const worker = new Worker('const { workerData } = require("node:worker_threads"); const s = workerData; while (Atomics.load(s, 0) === 0) Atomics.add(s, 1, 1); ', { eval: true, workerData: stop });
    await new Promise((resolve) => worker.once('online', resolve));
    let spun = 0;
    const from = process.cpuUsage();
    // Counted work on the main thread: at least 50 ms of its CPU (no wall clock involved).
    for (;;) {
      for (let i = 0; i < 1e5; i++) spun += Math.sqrt(i);
      const used = process.cpuUsage(from);
      if ((used.user + used.system) / 1000 >= 100 && Atomics.load(stop, 1) >= 1e6) break;
    }
    const during = threadTimes();
    Atomics.store(stop, 0, 1);
    await worker.terminate();
    const split = threadSplit(process.pid, before, during);
    expect(spun).toBeGreaterThan(0);
    expect(split.main.cpuMs).toBeGreaterThan(0);
    expect(split.others.length).toBeGreaterThan(0);
    expect(split.others[0].cpuMs).toBeGreaterThan(0);
    for (const thread of [split.main, ...split.others]) {
      expect(thread.queuedMs).toBeGreaterThanOrEqual(0);
      expect(thread.voluntary).toBeGreaterThanOrEqual(0);
      expect(thread.forced).toBeGreaterThanOrEqual(0);
      // Clock ticks and syscall counts from /proc: whole, never negative.
      expect(thread.userMs + thread.systemMs).toBeGreaterThanOrEqual(0);
      expect(thread.reads).toBeGreaterThanOrEqual(0);
    }
  });
});
