// `npm run bench:readme [-- results.json]`: writes a full run's table into the README's
// benchmark section, between its bench-table markers, so the README shows the
// latest run and nothing else keeps a copy (bench/README.md explains the figures).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const TABLE_START = '<!-- bench-table:start: written by `npm run bench:readme` from bench/results.json -->';
export const TABLE_END = '<!-- bench-table:end -->';

/** The lines between the markers: one sentence about the run, then its table as `bench/run.mjs` formatted it. */
export function benchSection(results) {
  const when = results.startedAt.replace('T', ' ').replace(/:\d\d\.\d+Z$/, ' UTC');
  const { machine } = results;
  const commit = machine.commit ? `, commit ${machine.commit}` : '';
  const misses = results.rows.filter((row) => row.pass === false);
  const verdict = misses.length === 0 ? 'every target met' : `${misses.length} target(s) missed`;
  return [
    `Latest full run: ${when}${commit}, ${machine.nproc} x ${machine.cpu}, Node ${machine.node}: ${verdict}.`,
    '',
    results.table,
  ].join('\n');
}

/** `readme` with the text between the markers replaced by `section`; throws when the markers are missing. */
export function withBenchSection(readme, section) {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`the README has no ${TABLE_START} ... ${TABLE_END} markers`);
  return `${readme.slice(0, start + TABLE_START.length)}\n\n${section}\n\n${readme.slice(end)}`;
}

/** The text between the markers as it stands. */
export function currentBenchSection(readme) {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < start) return undefined;
  return readme.slice(start + TABLE_START.length, end).trim();
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const resultsFile = path.resolve(process.argv[2] ?? path.join(root, 'bench', 'results.json'));
  const results = JSON.parse(readFileSync(resultsFile, 'utf8'));
  if (results.mode !== 'full') throw new Error(`${resultsFile} is a ${results.mode} run; the README shows full runs only`);
  const readmeFile = path.join(root, 'README.md');
  writeFileSync(readmeFile, withBenchSection(readFileSync(readmeFile, 'utf8'), benchSection(results)));
  process.stdout.write(`wrote the table of ${path.relative(root, resultsFile)} into README.md\n`);
}
