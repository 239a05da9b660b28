// Runs the Playwright end-to-end suite against web mode with a Chromium found
// by find-chromium.mjs. Extra arguments go to `playwright test`.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
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
const result = spawnSync(
  process.execPath,
  [require.resolve('@playwright/test/cli'), 'test', ...process.argv.slice(2)],
  { stdio: 'inherit', env: { ...process.env, PTYDECK_CHROMIUM: chromium } },
);
process.exit(result.status ?? 1);
