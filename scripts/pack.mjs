// `npm run pack`: the one installable package, `ptydeck-<version>.tgz`, written at
// the repository root (or in --out DIR); prints its file name. The workspace
// packages stay private: the package is staged in a temporary directory from
// what `npm run build` made, and `npm pack` runs there.
//
// What goes in, and why:
//   bin/ptydeck.js  the launcher (`bin`, CommonJS: bin/package.json); it runs
//                   dist/bundle/light.cjs (with bin/code-cache.js) or main.js
//   dist/bundle/    the CLI bundle with its screen worker and PTY read thread
//                   entries (rolldown.config.mjs), no source maps and no code
//                   cache (each install makes its own, if it may)
//   app/            the built panel (packages/app/dist), which the host serves
//                   (static-files.ts defaultAppDir)
//   dependencies    only what the bundle requires at run time instead of
//                   bundling: node-pty (a native addon), ws and the xterm
//                   mirror (loaded on first use), at the versions the lock file
//                   installed, so an install can come from the npm cache.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const core = join(root, 'packages', 'core');
const RUNTIME_DEPENDENCIES = ['node-pty', 'ws', '@xterm/headless', '@xterm/addon-serialize'];

const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));

function fail(message) {
  process.stderr.write(`pack: ${message}\n`);
  process.exit(1);
}

function outDir() {
  const at = process.argv.indexOf('--out');
  return at === -1 ? root : resolve(process.argv[at + 1] ?? fail('--out expects a directory'));
}

function manifest() {
  const corePackage = readJson(join(core, 'package.json'));
  const workspace = readJson(join(root, 'package.json'));
  const dependencies = {};
  for (const name of RUNTIME_DEPENDENCIES) {
    if (!corePackage.dependencies?.[name]) fail(`${name} is not a dependency of packages/core`);
    // Exactly what the lock file installed and the tests ran against.
    dependencies[name] = readJson(join(root, 'node_modules', name, 'package.json')).version;
  }
  return {
    name: 'ptydeck',
    version: corePackage.version,
    description: workspace.description,
    license: 'MIT',
    keywords: ['terminal', 'pty', 'mcp', 'mcp-server', 'acp', 'ai-agents', 'claude-code', 'codex', 'cli'],
    type: 'module',
    bin: { ptydeck: 'bin/ptydeck.js' },
    files: ['bin/', 'dist/bundle/', 'app/', 'docs/'],
    engines: { node: '>=20' },
    dependencies,
  };
}

function stage(dir) {
  const bundle = join(core, 'dist', 'bundle');
  const app = join(root, 'packages', 'app', 'dist');
  for (const needed of [join(bundle, 'main.js'), join(bundle, 'screen-worker.js'), join(bundle, 'read-thread-worker.js'), join(bundle, 'store-disk-worker.js'), join(app, 'index.html')]) {
    if (!existsSync(needed)) fail(`${needed} is missing; run \`npm run build\` first`);
  }
  const noMaps = (source) => !source.endsWith('.map');
  const shipped = (source) => noMaps(source) && !/\.v8cache(\.\d+\.tmp)?$/.test(source);
  mkdirSync(join(dir, 'bin'), { recursive: true });
  cpSync(join(core, 'bin', 'ptydeck.js'), join(dir, 'bin', 'ptydeck.js'));
  cpSync(join(core, 'bin', 'code-cache.js'), join(dir, 'bin', 'code-cache.js'));
  // The launcher is CommonJS in a package of ESM; this says so.
  cpSync(join(core, 'bin', 'package.json'), join(dir, 'bin', 'package.json'));
  // The bundle test builds into dist/.bundle-test-*; only dist/bundle ships.
  cpSync(bundle, join(dir, 'dist', 'bundle'), { recursive: true, filter: shipped });
  cpSync(app, join(dir, 'app'), { recursive: true, filter: noMaps });
  cpSync(join(root, 'README.md'), join(dir, 'README.md'));
  cpSync(join(root, 'LICENSE'), join(dir, 'LICENSE'));
  // The README links into docs/: the package carries them so the links hold where it is installed.
  cpSync(join(root, 'docs'), join(dir, 'docs'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest(), null, 2)}\n`);
}

const stagingRoot = mkdtempSync(join(tmpdir(), 'ptydeck-pack-'));
try {
  const staged = join(stagingRoot, 'ptydeck');
  stage(staged);
  const out = outDir();
  mkdirSync(out, { recursive: true });
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const packed = spawnSync(npm, ['pack', '--json', '--pack-destination', out], {
    cwd: staged,
    encoding: 'utf8',
    shell: process.platform === 'win32',
  });
  if (packed.status !== 0) fail(`npm pack failed:\n${packed.stderr}`);
  const [{ filename, size, unpackedSize, entryCount }] = JSON.parse(packed.stdout);
  const kB = (bytes) => `${Math.round(bytes / 1024)} kB`;
  process.stderr.write(`pack: ${entryCount} files, ${kB(size)} packed, ${kB(unpackedSize)} unpacked\n`);
  process.stdout.write(`${filename}\n`);
} finally {
  rmSync(stagingRoot, { recursive: true, force: true });
}
