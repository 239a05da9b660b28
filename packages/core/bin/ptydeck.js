#!/usr/bin/env node
// Thin launcher: the CLI lives in dist (built by `npm run build`). The bundle
// starts faster; in a checkout, a bundle older than the tsc output (after a
// bare `tsc -b`) would run stale code, so then the unbundled build runs. The
// installed package (`npm run pack`) carries only the bundle.
// CommonJS (bin/package.json), as is dist/bundle/light.cjs, which it asks
// first: `--help`, `--version`, `ls`, `url` and `status` then never start
// Node's ESM loader (bench figure 12); every other command is main.js's.
'use strict';
const { existsSync, statSync } = require('node:fs');
const { join } = require('node:path');
const { pathToFileURL } = require('node:url');

const dist = join(__dirname, '..', 'dist');
const unbundled = join(dist, 'cli', 'main.js');
const bundled = join(dist, 'bundle', 'main.js');
const light = join(dist, 'bundle', 'light.cjs');
const early = join(dist, 'bundle', 'early.cjs');
// tsc -b rewrites its build info whenever it emits any file; dist/cli/main.js
// itself is rewritten only when main.ts changes, so it cannot date the build.
const buildInfo = join(__dirname, '..', 'tsconfig.tsbuildinfo');
if (!existsSync(unbundled) && !existsSync(bundled)) {
  process.stderr.write('ptydeck: the core is not built; run `npm run build` in the ptydeck checkout\n');
  process.exit(1);
}
const fresh = existsSync(bundled) && (!existsSync(unbundled) || statSync(bundled).mtimeMs >= statSync(existsSync(buildInfo) ? buildInfo : unbundled).mtimeMs);
const argv = process.argv.slice(2);

async function run() {
  // light.cjs is written by the same build as main.js, after it. It runs with a V8 code cache beside it when its
  // directory lets us write one (code-cache.js), told the command so that the cache grows to hold each one's functions.
  const codeCache = fresh && existsSync(light) ? require('./code-cache.js') : undefined;
  const command = ['ls', 'url', 'status', 'attach'].includes(argv[0]) ? argv[0] : undefined;
  // Each of these asks this machine's host first: its connection opens now, before the client's code loads, so the
  // host looks at who connected while that code loads (client/early-connection.ts). Nothing is written on it before
  // the client's kernel check of the host; a command that takes another way closes it. It is opened on Node's TCP
  // binding where this Node allows, without loading node:net (client/raw-tcp.ts).
  if (codeCache && command !== undefined && !argv.includes('--remote')) {
    codeCache.requireCached(early, command).connectEarly(undefined, true);
    // Node issues the connect() itself from its tick queue (net.js's lookupAndConnect): let it run now, not once
    // the client's code has loaded and checked the host.
    await new Promise((resolve) => process.nextTick(resolve));
  }
  const code = codeCache ? await codeCache.requireCached(light, command).lightMain(argv) : undefined;
  if (code !== undefined) {
    // A light command resolves once its output is written, and may not have built process.stdout at all
    // (client/direct-output.ts): asking for it here would. A cache it lacked is written after its output.
    codeCache.writeCaches();
    return process.exit(code);
  }
  const exit = await (await import(pathToFileURL(fresh ? bundled : unbundled).href)).main(argv);
  // Let stdout drain (protocol frames, help text) before exiting.
  process.stdout.write('', () => process.exit(exit));
}

run();
