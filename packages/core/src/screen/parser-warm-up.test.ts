import { MessageChannel } from 'node:worker_threads';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { warmUpParser } from './parser-warm-up.js';
import { ScreenMirror } from './screen-mirror.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('warmUpParser', () => {
  it('runs what a read far behind runs, parsing, skimming and serializing, in a terminal it lets go', async () => {
    const write = vi.spyOn(ScreenMirror.prototype, 'write');
    const skim = vi.spyOn(ScreenMirror.prototype, 'skim');
    const serialize = vi.spyOn(ScreenMirror.prototype, 'serialize');
    const dispose = vi.spyOn(ScreenMirror.prototype, 'dispose');
    await warmUpParser(() => Promise.resolve());
    const skimmed = skim.mock.calls.reduce((sum, [data]) => sum + data.length, 0);
    expect(write).toHaveBeenCalled();
    expect(skimmed).toBeGreaterThanOrEqual(256 * 1024);
    expect(serialize).toHaveBeenCalled();
    expect(dispose).toHaveBeenCalledTimes(1);
  });

  it('sees a request that arrives during a step before its next step, whichever step it is', async () => {
    // As in the worker: requests arrive as messages, and whenIdle waits while one is being served.
    const { port1, port2 } = new MessageChannel();
    let steps = 0;
    const arrivals: Array<{ during: string; stepsAtPost: number; stepsAtReceipt?: number }> = [];
    port2.on('message', (index: number) => {
      arrivals[index]!.stepsAtReceipt = steps;
    });
    const arriveDuring = (during: string) => {
      steps++;
      arrivals.push({ during, stepsAtPost: steps });
      port1.postMessage(arrivals.length - 1);
    };
    // A skim is a write of the mode changes: one step, counted once by write.
    const write = ScreenMirror.prototype.write;
    const serialize = ScreenMirror.prototype.serialize;
    vi.spyOn(ScreenMirror.prototype, 'write').mockImplementation(function (this: ScreenMirror, ...args) {
      arriveDuring('write');
      return write.apply(this, args);
    });
    vi.spyOn(ScreenMirror.prototype, 'serialize').mockImplementation(function (this: ScreenMirror, ...args) {
      arriveDuring('serialize');
      return serialize.apply(this, args);
    });
    try {
      await warmUpParser(() => Promise.resolve());
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      port1.close();
      port2.close();
    }
    expect(new Set(arrivals.map((a) => a.during))).toEqual(new Set(['write', 'serialize']));
    const late = arrivals.filter((a) => a.stepsAtReceipt !== a.stepsAtPost);
    expect(late).toEqual([]);
  });

});
