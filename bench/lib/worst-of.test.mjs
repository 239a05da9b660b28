import { describe, expect, it } from 'vitest';
import { row } from './harness.mjs';
import { targetDirection, worstOf } from './worst-of.mjs';

const ingest = (ratio, cpu) => [
  row({ figure: '1', metric: 'ingest (MB/s)', value: 70 * ratio, baseline: 70, target: '>= 0.9x raw', pass: ratio >= 0.9 }),
  row({ figure: '1', metric: '  CPU per MB (ms)', value: cpu }),
];
const scale = (rss, keys, p99) => [
  row({ figure: '5', metric: '  core peak RSS during the flood (MiB)', value: rss, baseline: 64, target: '<= 250 MiB', pass: rss <= 250 }),
  row({ figure: '5', metric: `  keystroke echo p99, ${keys} keys (ms)`, value: p99, baseline: 20, target: '< 50 ms', pass: p99 < 50 }),
];

describe('worstOf', () => {
  it('reads which way a target goes and whether it is on the ratio', () => {
    expect(targetDirection('>= 0.9x raw')).toEqual({ higher: true, on: 'ratio' });
    expect(targetDirection('<= 2x raw, < 5 ms')).toEqual({ higher: false, on: 'ratio' });
    expect(targetDirection('< 50 ms')).toEqual({ higher: false, on: 'value' });
    expect(targetDirection('0')).toEqual({ higher: false, on: 'value' });
  });

  it('shows per row the worst run against its target, and a miss in any run as a miss', () => {
    const runs = [
      [...ingest(1.0, 6.1), ...scale(240, 1000, 30)],
      [...ingest(0.85, 7.5), ...scale(248, 1012, 20)],
      [...ingest(0.95, 6.4), ...scale(262, 990, 45)],
    ];
    const worst = worstOf(runs);
    expect(worst.map((r) => r.metric)).toEqual(runs[0].map((r) => r.metric).map((m, i) => (i === 3 ? '  keystroke echo p99, 990 keys (ms)' : m)));
    // Ingest: the lowest ratio, a miss; the CPU row beside it comes from the same run.
    expect(worst[0]).toMatchObject({ value: 70 * 0.85, pass: false });
    expect(worst[0].note).toBe('worst of 3 runs (1.00x, 0.85x MISS, 0.95x), run 2 shown');
    expect(worst[1].value).toBe(7.5);
    // Scale: the highest RSS (a miss in run 3 only) and the highest p99, each from its own run.
    expect(worst[2]).toMatchObject({ value: 262, pass: false });
    expect(worst[3]).toMatchObject({ value: 45, pass: true });
  });

  it('shows a figure that failed in any run as failed', () => {
    const failed = [row({ figure: '5', metric: 'scale: FAILED (host exited)', pass: false })];
    const worst = worstOf([scale(200, 1000, 10), failed, scale(210, 1000, 12)]);
    expect(worst).toEqual(failed);
  });

  it('is the run itself when there is one', () => {
    const only = scale(200, 1000, 10);
    expect(worstOf([only])).toBe(only);
  });
});

describe('worstOf with rows only some runs have', () => {
  it('matches rows by what they measure, so an info row in one run shifts nothing, and its miss shows', () => {
    const delivery = (label, ratio, resynced) => [
      row({ figure: '2', metric: `delivery, ${label} (MB/s)`, value: 80 * ratio, baseline: 80, target: '>= 0.9x raw', pass: ratio >= 0.9 }),
      row({ figure: '2', metric: '  core CPU per MB (ms)', value: 6 }),
      ...(resynced ? [row({ figure: '2', metric: '  runs resynced', value: resynced })] : []),
    ];
    const runs = [
      [...delivery('plain', 0.95, 0), ...delivery('colored', 1.01, 0)],
      [...delivery('plain', 0.98, 2), ...delivery('colored', 0.7, 1)],
    ];
    const worst = worstOf(runs);
    const colored = worst.find((r) => r.metric === 'delivery, colored (MB/s)');
    expect(colored.pass).toBe(false);
    expect(colored.note).toMatch(/run 2 shown/);
    // The resync rows come with the target row of their run; run 1's plain row is the worst plain.
    expect(worst.map((r) => r.metric)).toEqual(['delivery, plain (MB/s)', '  core CPU per MB (ms)', 'delivery, colored (MB/s)', '  core CPU per MB (ms)', '  runs resynced']);
  });
});
