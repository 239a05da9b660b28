#!/usr/bin/env node
// Writes scripts/test-durations.json from vitest's results cache (node_modules/.vite/vitest/*/results.json) after a
// whole `npm test` on a quiet machine: the files that took 2 s or more, with their seconds. The vitest sequencer
// (scripts/slow-first-sequencer.ts) starts them longest first on a clean clone, where vitest has no cache of its own.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const cacheRoot = new URL('../node_modules/.vite/vitest/', import.meta.url);
const [dir] = readdirSync(cacheRoot);
if (!dir) throw new Error('no vitest results cache: run npm test first');
const { results } = JSON.parse(readFileSync(join(cacheRoot.pathname, dir, 'results.json'), 'utf8'));
const slow = results
  .map(([file, { duration }]) => [file, Math.round(duration / 100) / 10])
  .filter(([, seconds]) => seconds >= 2)
  .sort((a, b) => b[1] - a[1]);
writeFileSync(new URL('./test-durations.json', import.meta.url), `${JSON.stringify(Object.fromEntries(slow), null, 1)}\n`);
console.log(`${slow.length} files of 2 s or more`);
