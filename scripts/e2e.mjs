// Runs the Playwright end-to-end suite against web mode with a Chromium found
// by find-chromium.mjs (under Xvfb when there is no display). Extra arguments go to `playwright test`.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { findChromium } from './find-chromium.mjs';
import { closeRunTmpReporting, openRunTmp } from './run-tmp.mjs';

const require = createRequire(import.meta.url);
const chromium = findChromium();
if (!chromium) {
  process.stderr.write(
    'e2e: no Chromium found. Install one (Debian: apt-get install -y chromium; elsewhere: ' +
      'npx playwright install chromium) or set PTYDECK_CHROMIUM to its path.\n',
  );
  process.exit(1);
}
process.stdout.write(`e2e: using Chromium at ${chromium}\n`);
const playwright = [process.execPath, require.resolve('@playwright/test/cli'), 'test', ...process.argv.slice(2)];
// The windowed project needs an X display: without one, a virtual one (xvfb-run picks a free number).
// Without xvfb-run either, its specs skip and say why.
const command = !process.env.DISPLAY && hasXvfbRun() ? ['xvfb-run', '-a', '-s', '-screen 0 1280x1024x24', ...playwright] : playwright;
// Tests never touch the real HOME (Chromium keeps crash-report settings and dconf under it) and leave nothing
// in the developer's /tmp (Playwright's browser profiles, the specs' state directories): the run gets a
// temporary directory of its own, TMPDIR and HOME for every spec, removed when the run ends (run-tmp.mjs).
const nested = Boolean(process.env.PTYDECK_RUN_TMP);
const run = nested ? undefined : openRunTmp();
const result = spawnSync(command[0], command.slice(1), { stdio: 'inherit', env: { ...process.env, ...run?.env, PTYDECK_CHROMIUM: chromium } });
if (run) closeRunTmpReporting(run.root, 'e2e');
process.exit(result.status ?? 1);

function hasXvfbRun() {
  return spawnSync('sh', ['-c', 'command -v xvfb-run'], { stdio: 'ignore' }).status === 0;
}
