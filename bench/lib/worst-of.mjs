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
  // Rows are matched by what they measure, not where they stand: a run may have rows another has not
  // (figure 2's "runs where the client was resynced" only when one was), which would shift every row
  // after it. Counts in a metric ("1012 keys") differ from run to run; repeated metrics ("peak RSS")
  // are told apart by their order.
  const keyed = runs.map(keyRows);
  const order = [...new Set([...keyed].sort((a, b) => b.size - a.size).flatMap((rows) => [...rows.keys()]))];
  const worst = [];
  let context = 0;
  for (const key of order) {
    const same = keyed.map((rows) => rows.get(key));
    const present = same.find((r) => r !== undefined);
    if (present.pass === null || same.some((r) => r === undefined)) {
      // No target, or not in every run: from the run the target row above came from, if it has it.
      const fromContext = same[context];
      if (fromContext !== undefined || present.pass !== null) worst.push(fromContext ?? present);
      continue;
    }
    const chosen = worstRow(same);
    context = same.indexOf(chosen);
    const each = same.map((r) => formatMeasure(r, targetDirection(r.target).on)).join(', ');
    worst.push({ ...chosen, note: [chosen.note, `worst of ${runs.length} runs (${each}), run ${context + 1} shown`].filter(Boolean).join('; ') });
  }
  return worst;
}

/** A run's rows of one figure by what each measures (digits aside), the n-th of a repeated metric apart. */
function keyRows(rows) {
  const keyed = new Map();
  const seen = new Map();
  for (const r of rows) {
    const metric = String(r.metric).replace(/\d+(\.\d+)?/g, '#');
    const n = seen.get(metric) ?? 0;
    seen.set(metric, n + 1);
    keyed.set(`${metric}#${n}`, r);
  }
  return keyed;
}

function formatMeasure(row, on) {
  const v = row[on];
  if (typeof v !== 'number' || !Number.isFinite(v)) return row.pass === false ? 'MISS' : '-';
  const text = on === 'ratio' ? `${v.toFixed(2)}x` : Number.isInteger(v) || Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2);
  return row.pass === false ? `${text} MISS` : text;
}
