#!/usr/bin/env node
// Thin launcher: the CLI lives in dist (built by `npm run build`). The bundle
// starts faster; in a checkout, a bundle older than the tsc output (after a
// bare `tsc -b`) would run stale code, so then the unbundled build runs. The
// installed package (`npm run pack`) carries only the bundle.
import { existsSync, statSync } from 'node:fs';

const unbundled = new URL('../dist/cli/main.js', import.meta.url);
const bundled = new URL('../dist/bundle/main.js', import.meta.url);
// tsc -b rewrites its build info whenever it emits any file; dist/cli/main.js
// itself is rewritten only when main.ts changes, so it cannot date the build.
const buildInfo = new URL('../tsconfig.tsbuildinfo', import.meta.url);
if (!existsSync(unbundled) && !existsSync(bundled)) {
  process.stderr.write('ptydeck: the core is not built; run `npm run build` in the ptydeck checkout\n');
  process.exit(1);
}
const fresh = existsSync(bundled) && (!existsSync(unbundled) || statSync(bundled).mtimeMs >= statSync(existsSync(buildInfo) ? buildInfo : unbundled).mtimeMs);
const { main } = await import((fresh ? bundled : unbundled).href);
const code = await main(process.argv.slice(2));
// Let stdout drain (protocol frames, help text) before exiting.
process.stdout.write('', () => process.exit(code));
