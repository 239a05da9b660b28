import { describe, expect, it } from 'vitest';
import { pairedRatio } from './paired-ratio.mjs';

const geometricMean = (values) => Math.exp(values.reduce((sum, value) => sum + Math.log(value), 0) / values.length);

describe('pairedRatio', () => {
  it('averages the middle pairs, not only the middle one or two', () => {
    // Ten pairs: the two lowest and the two highest go, the six between are averaged.
    const ratios = [0.5, 0.9, 0.96, 0.97, 0.98, 1.1, 1.12, 1.14, 1.3, 2];
    expect(pairedRatio(ratios)).toBeCloseTo(geometricMean([0.96, 0.97, 0.98, 1.1, 1.12, 1.14]), 12);
    expect(pairedRatio([...ratios].reverse())).toBeCloseTo(pairedRatio(ratios), 12);
  });

  it('is not moved by a pair a burst of other work hit, at either end', () => {
    const steady = [0.98, 0.99, 1, 1.01, 1.02, 0.99, 1, 1.01, 1, 1];
    const hit = [...steady.slice(0, 8), 0.6, 1.7];
    expect(pairedRatio(hit)).toBeCloseTo(pairedRatio([...steady.slice(0, 8), 0.98, 1.02]), 12);
  });

  it('gives the reciprocal for the sides swapped', () => {
    const ratios = [0.93, 1.04, 0.99, 1.08, 0.97, 1.01, 0.95, 1.02];
    expect(pairedRatio(ratios.map((r) => 1 / r))).toBeCloseTo(1 / pairedRatio(ratios), 12);
  });

  it('takes every pair when there are too few to drop any', () => {
    expect(pairedRatio([0.9, 1.1])).toBeCloseTo(Math.sqrt(0.99), 12);
    expect(pairedRatio([])).toBeNaN();
  });
});
