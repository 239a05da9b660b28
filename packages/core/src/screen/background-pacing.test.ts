import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BackgroundPacing } from './background-pacing.js';

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

  it('requests nothing once disposed', () => {
    let requests = 0;
    const pacing = new BackgroundPacing({ eager: () => true, bulk: new Set(), parsed: () => 0, end: () => 1, request: () => requests++ });
    pacing.grew();
    pacing.dispose();
    vi.runAllTimers();
    expect(requests).toBe(0);
  });
});
