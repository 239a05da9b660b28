// Finds the Electron binary the way the `electron` package (v45, node_modules/electron/index.js)
// does, without its side effect: `require('electron')` downloads the binary when it is
// missing, which blocks offline. Used by `npm start` (scripts/start.mjs) and the Electron
// end-to-end test (e2e/electron.spec.ts) to decide between the window and web mode.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * @typedef {{ found: true, path: string } | { found: false, reason: string }} ElectronBinary
 */

/** The installed `electron` package's directory, or null when it is not installed. */
function electronPackageDir(from = import.meta.url) {
  try {
    return dirname(createRequire(from).resolve('electron/package.json'));
  } catch {
    return null;
  }
}

/**
 * Where the Electron executable is, if it is there.
 * Mirrors index.js: path.txt names the executable inside dist/ (written by install.js once
 * the download is extracted); ELECTRON_OVERRIDE_DIST_PATH replaces dist/ with a local build.
 * @param {{ env?: Record<string, string | undefined>, packageDir?: string | null }} [options]
 * @returns {ElectronBinary}
 */
export function findElectronBinary(options = {}) {
  const env = options.env ?? process.env;
  const packageDir = options.packageDir === undefined ? electronPackageDir() : options.packageDir;
  if (packageDir === null) {
    return { found: false, reason: 'the electron package is not installed' };
  }
  const pathFile = join(packageDir, 'path.txt');
  const executable = existsSync(pathFile) ? readFileSync(pathFile, 'utf8') : null;
  const override = env.ELECTRON_OVERRIDE_DIST_PATH;
  if (override) {
    const path = join(override, executable || 'electron');
    return existsSync(path)
      ? { found: true, path }
      : { found: false, reason: `ELECTRON_OVERRIDE_DIST_PATH has no Electron executable at ${path}` };
  }
  if (!executable) {
    return { found: false, reason: 'its download never completed, offline?' };
  }
  const path = join(packageDir, 'dist', executable);
  return existsSync(path) ? { found: true, path } : { found: false, reason: `its executable is missing from ${path}` };
}
