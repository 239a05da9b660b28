import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BackgroundPacing } from './background-pacing.js';
import { BackgroundScheduler, WORKER_BUDGET } from './background-scheduler.js';

describe('BackgroundPacing in the worker (eager)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('hands output arriving close together to the worker in one request, after the first of it waited a moment', () => {
    // Typed keys echoed one by one were one post each, inside the echo's round trip.
    let end = 0;
    let requests = 0;
    const pacing = new BackgroundPacing({ eager: () => true, bulk: new Set(), parsed: () => 0, end: () => end, request: () => requests++ });
    for (let key = 0; key < 3; key++) {
      end++;
      pacing.grew();
    }
    expect(requests).toBe(0);
    vi.runAllTimers();
    expect(requests).toBe(1);
    // Parsed to the end, the scheduler drops it; the next output waits again.
    expect(pacing.caughtUp()).toBe(false);
    pacing.stopped();
    end++;
    pacing.grew();
    expect(requests).toBe(1);
    vi.runAllTimers();
    expect(requests).toBe(2);
    pacing.dispose();
  });

  // Figure 3: a timer that fell due while a key waited for the host ran after the key's write and before its echo
  // was read, and the worker it woke took a CPU from the echo; output that keeps coming is taken in its own task.
  it('takes output that keeps coming in the task of the output that finds it a moment old, not on a timer; lone output on the timer', () => {
    let end = 0;
    let inOutput = false;
    const requests: string[] = [];
    const pacing = new BackgroundPacing({ eager: () => true, bulk: new Set(), parsed: () => 0, end: () => end, request: () => requests.push(inOutput ? 'output' : 'timer') });
    const output = () => {
      end++;
      inOutput = true;
      pacing.grew();
      inOutput = false;
    };
    for (let key = 0; key < 5; key++) {
      output();
      vi.advanceTimersByTime(5);
    }
    expect(requests).toEqual(['output']);
    expect(vi.getTimerCount()).toBe(0);
    pacing.stopped();
    output();
    vi.advanceTimersByTime(60);
    expect(requests).toEqual(['output', 'timer']);
    pacing.dispose();
  });

  // Figure 3: the slice after a trickle was taken in a setImmediate after the worker's answer, often in a key's input turn.
  it('leaves a trickle that came during a slice to the next eager take, and parses more than that on at once', () => {
    let end = 10;
    let parsed = 0;
    let requests = 0;
    const pacing = new BackgroundPacing({ eager: () => true, bulk: new Set(), parsed: () => parsed, end: () => end, request: () => requests++ });
    pacing.grew();
    vi.runAllTimers();
    expect(requests).toBe(1);
    // What it was queued for is parsed, however little.
    expect(pacing.caughtUp()).toBe(false);
    pacing.slicing();
    parsed = end;
    end += 3; // keys typed while the slice parsed
    expect(pacing.caughtUp()).toBe(true);
    pacing.stopped();
    expect(requests).toBe(1);
    vi.runAllTimers();
    expect(requests).toBe(2);
    pacing.slicing();
    parsed = end;
    end += 2048; // a build's log
    expect(pacing.caughtUp()).toBe(false);
    pacing.dispose();
  });

  // Figure 6: a build's log that arrived at once is parsed as soon after it as before.
  it('takes bulk output that nothing follows on the timer EAGER_DELAY_MS after it', () => {
    let requests = 0;
    const pacing = new BackgroundPacing({ eager: () => true, bulk: new Set(), parsed: () => 0, end: () => 4096, request: () => requests++ });
    pacing.grew();
    vi.advanceTimersByTime(20);
    expect(requests).toBe(1);
    pacing.dispose();
  });

  it('requests nothing once disposed', () => {
    let requests = 0;
    const pacing = new BackgroundPacing({ eager: () => true, bulk: new Set(), parsed: () => 0, end: () => 1, request: () => requests++ });
    pacing.grew();
    pacing.dispose();
    vi.runAllTimers();
    expect(requests).toBe(0);
  });

  // Figure 2: a flood outran each eager slice, which skimmed what had arrived and parsed a tail the next skim
  // skipped, until a megabyte counted as parsed; the delivery needed that CPU.
  it('holds for a flood once a slice had to skim and output went on arriving meanwhile', () => {
    let end = 400 * 1024;
    let parsed = 0;
    const pacing = new BackgroundPacing({ eager: () => true, bulk: new Set(), parsed: () => parsed, end: () => end, request: () => {} });
    pacing.grew();
    expect(pacing.holdsForFlood()).toBe(false);
    // The slice skimmed to a kept tail; the flood wrote more while it did.
    const endAtSlice = end;
    parsed = end - 80 * 1024;
    end += 300 * 1024;
    pacing.outran(endAtSlice);
    expect(pacing.holdsForFlood()).toBe(true);
    pacing.dispose();
  });

  // Figure 6: a build's log that ended before the slice skimmed is parsed on at once, ready for a reload.
  it('parses on after a skim when no output came meanwhile', () => {
    const end = 720 * 1024;
    let parsed = 0;
    const pacing = new BackgroundPacing({ eager: () => true, bulk: new Set(), parsed: () => parsed, end: () => end, request: () => {} });
    pacing.grew();
    expect(pacing.holdsForFlood()).toBe(false);
    parsed = end - 80 * 1024;
    pacing.outran(end);
    expect(pacing.holdsForFlood()).toBe(false);
    pacing.dispose();
  });
});

describe('BackgroundScheduler', () => {
  it("starts a slice requested in a task after that task's promise chain, as an agent's answer is (bench figure 4)", async () => {
    const order: string[] = [];
    const scheduler = new BackgroundScheduler(() => {}, () => WORKER_BUDGET);
    const screen = {
      id: 's1',
      backgroundSlice: async () => {
        order.push('slice');
        return null;
      },
    };
    // A PTY's data event asks for a slice, then resolves what a terminal_run awaits, whose result goes out
    // after a chain of awaits (the tool, the SDK, the HTTP answer).
    let resolveRun!: () => void;
    const answered = new Promise<void>((resolve) => (resolveRun = resolve)).then(async () => {
      for (let i = 0; i < 20; i++) await Promise.resolve();
      order.push('answer');
    });
    scheduler.request(screen);
    resolveRun();
    await answered;
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['answer', 'slice']);
    scheduler.dispose();
  });

  // Figure 15: the screens' pty.data listener asks for a slice before the panels' listener queues its pump (a
  // microtask, PumpSchedule); a slice started in the call or in a microtask of its own posted the output to the
  // worker before the panel's frame was written, and the woken worker took a CPU from the echo.
  it('starts a slice asked for in an output event after the microtasks that event queued later (the panels\' pump)', async () => {
    const order: string[] = [];
    let sliced!: () => void;
    const done = new Promise<void>((resolve) => (sliced = resolve));
    const scheduler = new BackgroundScheduler(() => {}, () => WORKER_BUDGET);
    scheduler.request({
      id: 's',
      backgroundSlice: async () => {
        order.push('slice');
        sliced();
        return null;
      },
    });
    queueMicrotask(() => order.push('pump'));
    await done;
    expect(order).toEqual(['pump', 'slice']);
    scheduler.dispose();
  });
});
