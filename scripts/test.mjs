// `npm test`: typecheck and build, unit and integration tests (vitest), then
// the end-to-end tests (Playwright in Chromium). Stops at the first failing
// stage and ends with one plain summary line across both runners.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';

const results = 'test-results';
rmSync(`${results}/vitest.json`, { force: true });
rmSync(`${results}/e2e.json`, { force: true });
mkdirSync(results, { recursive: true });

function run(title, command, args) {
  process.stdout.write(`\n== ${title}: ${[command, ...args].join(' ')}\n`);
  const result = spawnSync(command, args, { stdio: 'inherit' });
  return result.status ?? 1;
}

function counts(file, read) {
  try {
    return read(JSON.parse(readFileSync(file, 'utf8')));
  } catch {
    return { passed: 0, failed: 0, skipped: 0 };
  }
}

function summary() {
  const unit = counts(`${results}/vitest.json`, (r) => ({
    passed: r.numPassedTests ?? 0,
    failed: r.numFailedTests ?? 0,
    skipped: (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0),
  }));
  const e2e = counts(`${results}/e2e.json`, (r) => ({
    passed: r.stats?.expected ?? 0,
    failed: (r.stats?.unexpected ?? 0) + (r.stats?.flaky ?? 0),
    skipped: r.stats?.skipped ?? 0,
  }));
  const passed = unit.passed + e2e.passed;
  const failed = unit.failed + e2e.failed;
  const skipped = unit.skipped + e2e.skipped;
  process.stdout.write(`\nunit+integration: ${unit.passed} passed, ${unit.failed} failed, ${unit.skipped} skipped\n`);
  process.stdout.write(`end-to-end: ${e2e.passed} passed, ${e2e.failed} failed, ${e2e.skipped} skipped\n`);
  process.stdout.write(`${passed} passed, ${failed} failed, ${skipped} skipped\n`);
}

const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
const stages = [
  ['typecheck', npx, ['tsc', '-b']],
  ['typecheck the core\'s tests', npx, ['tsc', '-p', 'packages/core/tsconfig.test.json']],
  ['bundle the CLI', npx, ['rolldown', '-c', 'packages/core/rolldown.config.mjs']],
  ['typecheck app', npx, ['tsc', '-p', 'packages/app', '--noEmit']],
  ['build app', npx, ['vite', 'build', '--logLevel', 'warn']],
  [
    'unit and integration tests',
    npx,
    ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${results}/vitest.json`],
  ],
  ['end-to-end tests', process.execPath, ['scripts/e2e.mjs']],
];

for (const [title, command, args] of stages) {
  const status = run(title, command, args);
  if (status !== 0) {
    summary();
    process.stderr.write(`\nnpm test: ${title} failed (exit ${status})\n`);
    process.exit(status);
  }
}
summary();
