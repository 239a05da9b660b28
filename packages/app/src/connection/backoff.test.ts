import { describe, expect, it } from 'vitest';
import { backoffDelay, DEFAULT_BACKOFF } from './backoff.js';

const options = { initialMs: 100, maxMs: 1_000, factor: 2, jitter: 0.5 };

describe('backoffDelay', () => {
  it('grows exponentially without jitter', () => {
    const delays = [0, 1, 2, 3].map((attempt) => backoffDelay(attempt, options, () => 0));
    expect(delays).toEqual([100, 200, 400, 800]);
  });

  it('is capped at maxMs however many attempts failed', () => {
    expect(backoffDelay(4, options, () => 0)).toBe(1_000);
    expect(backoffDelay(60, options, () => 0)).toBe(1_000);
    expect(backoffDelay(10_000, DEFAULT_BACKOFF, () => 0)).toBe(DEFAULT_BACKOFF.maxMs);
  });

  it('jitter only shortens the delay, by at most the jitter fraction', () => {
    expect(backoffDelay(3, options, () => 0.999999)).toBe(400);
    expect(backoffDelay(3, options, () => 0.5)).toBe(600);
    expect(backoffDelay(10, options, () => 1)).toBe(500);
  });

  it('treats negative or fractional attempts as the nearest sensible attempt', () => {
    expect(backoffDelay(-3, options, () => 0)).toBe(100);
    expect(backoffDelay(1.7, options, () => 0)).toBe(200);
  });
});
