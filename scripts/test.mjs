// `npm test`: typecheck and build, unit and integration tests (vitest), then
// the end-to-end tests (Playwright in Chromium). Stops at the first failing
// stage and ends with one plain summary line across both runners.
//
// After `tsc -b` (which emits what the bundles are made from), the rest of the
// build runs in two lanes at once: tsc checks on one core while the bundlers
// use the other. Each lane's stages print their output when they end, whole.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const results = 'test-results';
rmSync(`${results}/vitest.json`, { force: true });
rmSync(`${results}/e2e.json`, { force: true });
mkdirSync(results, { recursive: true });

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

function heading(title, command, args) {
  return `\n== ${title}: ${[command, ...args].join(' ')}\n`;
}

/** Runs one stage with the terminal to itself; resolves with its exit status. */
function run([title, command, args]) {
  process.stdout.write(heading(title, command, args));
  const started = Date.now();
  const cpu = childCpu();
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'inherit' });
    child.once('error', () => resolve({ title, status: 1 }));
    child.once('close', (status) => {
      process.stdout.write(`== ${title}: ${seconds(started)}, ${(childCpu() - cpu).toFixed(1)} s of CPU\n`);
      resolve({ title, status: status ?? 1 });
    });
  });
}

/**
 * Runs one stage beside others: its output is held and printed whole when it ends, or, given `after`,
 * once that has settled too (a stage beside one that has the terminal).
 */
function runHeld([title, command, args], after = Promise.resolve()) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: process.stdout.isTTY ? '1' : '0' } });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    const done = async (status) => {
      const took = seconds(started);
      await after;
      process.stdout.write(heading(title, command, args));
      process.stdout.write(Buffer.concat(output));
      process.stdout.write(`== ${title}: ${took}\n`);
      resolve({ title, status });
    };
    child.once('error', (error) => {
      output.push(Buffer.from(`${error.message}\n`));
      done(1);
    });
    child.once('close', (status) => done(status ?? 1));
  });
}

function seconds(since) {
  return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}

/**
 * CPU seconds used so far by the stages that ended (Linux: cutime + cstime of this process, which
 * count every waited-for descendant). Wall time on a shared machine says little; with this beside it a
 * stage's report tells whether it kept the cores busy or waited.
 */
function childCpu() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    // Fields 16 and 17 of stat(5), counted from the state (field 3) at index 0.
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return Number.NaN;
  }
}

/** Runs the stages one after another, stopping at the first that fails. */
async function lane(stages, start) {
  for (const stage of stages) {
    const result = await start(stage);
    if (result.status !== 0) return result;
  }
  return { status: 0 };
}

function stop(result) {
  summary();
  process.stderr.write(`\nnpm test: ${result.title} failed (exit ${result.status})\n`);
  process.exit(result.status);
}

const typecheck = ['typecheck', npx, ['tsc', '-b']];
const lanes = [
  [['typecheck the core\'s tests', npx, ['tsc', '-p', 'packages/core/tsconfig.test.json']]],
  [
    ['bundle the CLI', npx, ['rolldown', '-c', 'packages/core/rolldown.config.mjs']],
    ['typecheck app', npx, ['tsc', '-p', 'packages/app', '--noEmit']],
    ['build app', npx, ['vite', 'build', '--logLevel', 'warn']],
    // The end-to-end tests' bundle (e2e/global-setup.ts builds it when they run alone).
    ['build the end-to-end app', npx, ['vite', 'build', '--mode', 'e2e', '--logLevel', 'warn']],
  ],
];
const tests = [
  ['unit and integration tests', npx, ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${results}/vitest.json`]],
  ['end-to-end tests', process.execPath, ['scripts/e2e.mjs']],
];
// The renderer's bundles, built above: the end-to-end tests serve the one, scripts/production-bundle.test.ts
// reads both rather than building them a second time.
process.env.PTYDECK_E2E_APP_BUILT = fileURLToPath(new URL('../packages/app/dist-e2e', import.meta.url));
process.env.PTYDECK_APP_BUILT = fileURLToPath(new URL('../packages/app/dist', import.meta.url));

const first = await run(typecheck);
if (first.status !== 0) stop(first);
const building = { started: Date.now(), cpu: childCpu() };
const built = await Promise.all(lanes.map((stages) => lane(stages, runHeld)));
process.stdout.write(`== both lanes: ${seconds(building.started)}, ${(childCpu() - building.cpu).toFixed(1)} s of CPU\n`);
const failed = built.find((result) => result.status !== 0);
if (failed) stop(failed);
// PTYDECK_TEST_OVERLAP=1 runs the two runners side by side: vitest alone used about 355 s of CPU in a
// run whose quiet-machine wall time is about 250 s on 2 cores (70 % of them), and each runner has its own
// temporary directory, hosts, state directories and HOMEs. Vitest has the terminal; Playwright's output
// follows it, whole. Not the default until it is shown reliable on a quiet 2-core machine: on one at a load
// of 25-30, side by side, server/fuzz.test.ts's MCP requests and two chat specs failed (alone at load 20-26
// the specs could not connect a panel in 45 s either, so that run showed nothing either way).
const testing = { started: Date.now(), cpu: childCpu() };
let tested;
if (process.env.PTYDECK_TEST_OVERLAP !== '1') {
  tested = [await lane(tests, run)];
} else {
  const unit = run(tests[0]);
  tested = await Promise.all([unit, runHeld(tests[1], unit)]);
  process.stdout.write(`== both runners: ${seconds(testing.started)}, ${(childCpu() - testing.cpu).toFixed(1)} s of CPU\n`);
}
const testFailed = tested.find((result) => result.status !== 0);
if (testFailed) stop(testFailed);
summary();
