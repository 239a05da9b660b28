// Runs the Playwright end-to-end suite against web mode with a Chromium found
// by find-chromium.mjs (under Xvfb when there is no display). Extra arguments go to `playwright test`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findChromium } from './find-chromium.mjs';

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
// Tests never touch the real HOME: Chromium keeps crash-report settings and dconf under it.
const home = mkdtempSync(join(tmpdir(), 'ptydeck-e2e-home-'));
const isolated = { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_CACHE_HOME: join(home, '.cache'), XDG_STATE_HOME: join(home, '.local', 'state'), XDG_DATA_HOME: join(home, '.local', 'share') };
const result = spawnSync(command[0], command.slice(1), { stdio: 'inherit', env: { ...process.env, ...isolated, PTYDECK_CHROMIUM: chromium } });
process.exit(result.status ?? 1);

function hasXvfbRun() {
  return spawnSync('sh', ['-c', 'command -v xvfb-run'], { stdio: 'ignore' }).status === 0;
}
