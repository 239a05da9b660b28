import { afterEach, describe, expect, it, vi } from 'vitest';
import { watchMemory } from './memory-probe.mjs';

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
});
