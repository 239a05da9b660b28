import { afterEach, describe, expect, it, vi } from 'vitest';
import { smapsFields, watchMemory } from './memory-probe.mjs';

afterEach(() => {
  vi.useRealTimers();
});

describe('watchMemory', () => {
  it("reads the logs' buffers every tenth sample and at the end, carrying the last value in between", () => {
    vi.useFakeTimers();
    const asked = [];
    const stop = watchMemory({
      logBytes: ({ buffers }) => {
        asked.push(buffers);
        return { retained: 1, buffers: buffers ? 1000 + asked.length : undefined };
      },
      worker: () => undefined,
    });
    vi.advanceTimersByTime(50 * 24);
    const result = stop();
    expect(result.samples).toBe(26);
    expect(asked.map((buffers, i) => (buffers ? i : -1)).filter((i) => i >= 0)).toEqual([0, 10, 20, 25]);
    // Every sample has a buffers figure: the one read last, so the maximum is the latest read's.
    expect(result.max.logBuffers).toBe(1026);
    expect(result.peak.logBytes.buffers).toBeGreaterThan(0);
    expect(result.probeMs).toBeGreaterThanOrEqual(0);
  });

  it.runIf(process.platform === 'linux')("reads the process's status at every sample and leaves smaps_rollup to another process (smapsFields)", () => {
    const stop = watchMemory({ logBytes: () => ({ retained: 1 }), worker: () => undefined });
    const result = stop();
    expect(result.peak.VmRSS).toBeGreaterThan(0);
    // The kernel's walk of every page would stall the probed host's main thread: not read there.
    expect(result.peak).not.toHaveProperty('Anonymous');
    expect(smapsFields(process.pid).Anonymous).toBeGreaterThan(0);
  });
});
