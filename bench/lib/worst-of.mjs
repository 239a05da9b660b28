// `--repeat N`: the whole table run N times, and per row the worst of the N
// against its target, so a figure that holds only some of the time shows as
// the miss it is. Rows are matched by figure and position: a figure's rows
// come in the same order every run, while their labels may carry counts that
// differ (keys typed, reads made).

/**
 * Which way a target wants a row to go, and what it is checked on: a target
 * starting with `>=` or `>` wants it higher, any other lower; one stated as a
 * multiple (`>= 0.9x raw`, `<= 2x raw, ...`) is on the ratio, the rest on the value.
 */
export function targetDirection(target) {
  const text = String(target ?? '').trim();
  return {
    higher: /^>/.test(text),
    on: /^[<>]=?\s*[\d.]+x\b/.test(text) ? 'ratio' : 'value',
  };
}

/** The worst of one row's runs: a miss if any run missed (the worst miss), else the run closest to missing. */
export function worstRow(runs) {
  const { higher, on } = targetDirection(runs[0].target);
  const misses = runs.filter((r) => r.pass === false);
  const candidates = misses.length > 0 ? misses : runs;
  const measure = (r) => {
    const v = r[on];
    return typeof v === 'number' && Number.isFinite(v) ? v : higher ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
  };
  return candidates.reduce((worst, r) => ((higher ? measure(r) < measure(worst) : measure(r) > measure(worst)) ? r : worst));
}

/**
 * One table from N runs' rows (each an array of rows in table order). A row
 * with a target shows its worst run, its note saying what each run gave; a
 * row without one (context: CPU per MB, steal time, the p50 beside a p99)
 * comes from the same run as the last target row before it in its figure, so
 * it explains the number it stands beside, or from the first run when its
 * figure has no target row above it. A figure that could not run in some run
 * (its one row FAILED) shows that failure.
 */
export function worstOf(runs) {
  if (runs.length === 1) return runs[0];
  const figures = [...new Set(runs.flatMap((rows) => rows.map((r) => r.figure)))];
  return figures.flatMap((figure) => worstOfFigure(runs.map((rows) => rows.filter((r) => r.figure === figure))));
}

function worstOfFigure(runs) {
  const failed = runs.find((rows) => rows.length === 0 || rows.some((r) => /FAILED/.test(r.metric)));
  if (failed) return failed.length > 0 ? failed : [{ ...runs.find((rows) => rows.length > 0)[0], metric: 'FAILED (missing in a run)', pass: false }];
  const worst = [];
  let context = 0;
  runs[0].forEach((first, i) => {
    const same = runs.map((rows) => rows[i]);
    if (first.pass === null || same.some((r) => r === undefined)) {
      worst.push(runs[context][i] ?? first);
      return;
    }
    const chosen = worstRow(same);
    context = same.indexOf(chosen);
    const each = same.map((r) => formatMeasure(r, targetDirection(r.target).on)).join(', ');
    worst.push({ ...chosen, note: [chosen.note, `worst of ${runs.length} runs (${each}), run ${context + 1} shown`].filter(Boolean).join('; ') });
  });
  return worst;
}

function formatMeasure(row, on) {
  const v = row[on];
  if (typeof v !== 'number' || !Number.isFinite(v)) return row.pass === false ? 'MISS' : '-';
  const text = on === 'ratio' ? `${v.toFixed(2)}x` : Number.isInteger(v) || Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2);
  return row.pass === false ? `${text} MISS` : text;
}
