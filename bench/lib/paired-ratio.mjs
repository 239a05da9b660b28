// One figure's ratio of two sides measured in alternated pairs (figure 13's timeline on and off).

/** Of the pairs' log ratios, the share dropped at each end before the rest is averaged. */
const TRIM = 0.2;

/**
 * The center of `ratios` (one per alternated pair, each side over the other):
 * the geometric mean of the middle 60%, after the lowest and the highest 20%
 * are dropped. Why not the median: it keeps one or two pairs, and with ten to
 * twenty pairs whose ratio moves by about 5% each (a read thread's waits in
 * the kernel, bench/README.md), its estimate moved by twice as much as a mean
 * of the middle pairs does, which keeps what the median keeps out (a pair
 * that a burst of other work hit) out too. On logs, so a ratio and its
 * reciprocal are one distance from 1 and the result of the sides swapped is
 * the reciprocal.
 */
export function pairedRatio(ratios) {
  if (ratios.length === 0) return Number.NaN;
  const logs = ratios.map(Math.log).sort((a, b) => a - b);
  const drop = Math.floor(logs.length * TRIM);
  const kept = logs.slice(drop, logs.length - drop);
  return Math.exp(kept.reduce((sum, value) => sum + value, 0) / kept.length);
}
