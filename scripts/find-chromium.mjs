// Finds a Chromium for the end-to-end tests, in order: an explicit setting
// (PTYDECK_CHROMIUM), the system's Chromium or Chrome, Playwright's own
// download, then a Playwright install where the network allows one.
// Prints the path on success; explains what to do and exits 1 otherwise.
import { execFileSync, spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

function isExecutable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function fromEnv() {
  const explicit = process.env.PTYDECK_CHROMIUM;
  if (!explicit) return undefined;
  if (!isExecutable(explicit)) {
    throw new Error(`PTYDECK_CHROMIUM is set to ${explicit}, which is not an executable file`);
  }
  return explicit;
}

function fromSystem() {
  const names = ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome'];
  for (const name of names) {
    const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim();
    if (found && isExecutable(found)) return found;
  }
  const mac = '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome';
  return isExecutable(mac) ? mac : undefined;
}

function fromPlaywright() {
  try {
    const { chromium } = require('@playwright/test');
    const path = chromium.executablePath();
    return path && isExecutable(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

function installPlaywrightChromium() {
  try {
    execFileSync(process.execPath, [require.resolve('@playwright/test/cli'), 'install', 'chromium'], {
      stdio: ['ignore', 'ignore', 'ignore'],
      timeout: 180_000,
    });
    return fromPlaywright();
  } catch {
    return undefined;
  }
}

export function findChromium({ install = true } = {}) {
  return fromEnv() ?? fromSystem() ?? fromPlaywright() ?? (install ? installPlaywrightChromium() : undefined);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const path = findChromium();
  if (!path) {
    process.stderr.write(
      'No Chromium found for the end-to-end tests. Install one of:\n' +
        '  Debian/Ubuntu: sudo apt-get install -y chromium\n' +
        '  any OS with network: npx playwright install chromium\n' +
        'or point PTYDECK_CHROMIUM at a Chromium or Chrome executable.\n',
    );
    process.exit(1);
  }
  process.stdout.write(`${path}\n`);
}
