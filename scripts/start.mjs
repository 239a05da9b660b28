// `npm start`: build if needed, then open the desktop window. Without an Electron binary
// (offline install, or a machine like CI where its download never ran) say so in one line
// and run web mode instead: `ptydeck`, which makes sure the user's host runs (starting it
// detached, or joining the one an agent's `ptydeck mcp` started) and prints a one-time link
// to open in a browser. (`npm start -- serve` runs the host in this terminal instead.)
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findElectronBinary } from './electron-binary.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

// What each mode runs; any of it missing means this checkout was never (fully) built.
const webOutputs = ['packages/contract/dist/index.js', 'packages/core/dist/cli/main.js', 'packages/app/dist/index.html'];
const electronOutputs = [...webOutputs, 'packages/core/dist/index.js', 'electron/dist/main/main.js', 'electron/dist/preload/preload.cjs'];

function buildIfNeeded(outputs) {
  const missing = outputs.filter((file) => !existsSync(join(root, file)));
  if (missing.length === 0) return;
  process.stderr.write(`ptydeck: building first (${missing[0]} is missing)\n`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(npm, ['run', 'build'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  if (result.status !== 0) {
    process.stderr.write('ptydeck: the build failed; see the errors above\n');
    process.exit(result.status ?? 1);
  }
}

function launch(electron) {
  if (electron.found) {
    // Electron reads electron/package.json, whose "main" is the compiled ESM main process.
    return spawn(electron.path, [join(root, 'electron')], { cwd: root, stdio: 'inherit' });
  }
  process.stderr.write(
    `ptydeck: Electron's binary is not installed (${electron.reason}); running web mode instead: open the URL below.\n`,
  );
  return spawn(process.execPath, [join(root, 'packages/core/bin/ptydeck.js'), ...process.argv.slice(2)], {
    cwd: root,
    stdio: 'inherit',
  });
}

// Decided before building: finding the binary is a few stat calls, and web mode needs less built.
const electron = findElectronBinary();
buildIfNeeded(electron.found ? electronOutputs : webOutputs);
const child = launch(electron);

// A signal to `npm start` goes to the child (the window, or a foreground host) rather than
// ending this wrapper and orphaning it.
const forwarded = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const forward = (signal) => {
  if (child.exitCode === null && child.signalCode === null) child.kill(signal);
};
for (const signal of forwarded) process.on(signal, forward);

child.on('error', (error) => {
  process.stderr.write(`ptydeck: could not start: ${error.message}\n`);
  process.exit(1);
});
child.on('exit', (code, signal) => {
  for (const name of forwarded) process.off(name, forward);
  if (signal !== null) {
    // Die of the same signal, so whoever ran `npm start` sees how the app ended.
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
