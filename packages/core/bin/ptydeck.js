#!/usr/bin/env node
// Thin launcher: the CLI lives in dist (built by `npm run build`). The bundle
// starts faster; a bundle older than the tsc output (after a bare `tsc -b`)
// would run stale code, so then the unbundled build runs.
import { existsSync, statSync } from 'node:fs';

const unbundled = new URL('../dist/cli/main.js', import.meta.url);
const bundled = new URL('../dist/bundle/main.js', import.meta.url);
// tsc -b rewrites its build info whenever it emits any file; dist/cli/main.js
// itself is rewritten only when main.ts changes, so it cannot date the build.
const buildInfo = new URL('../tsconfig.tsbuildinfo', import.meta.url);
if (!existsSync(unbundled)) {
  process.stderr.write('ptydeck: the core is not built; run `npm run build` in the ptydeck checkout\n');
  process.exit(1);
}
const built = statSync(existsSync(buildInfo) ? buildInfo : unbundled).mtimeMs;
const fresh = existsSync(bundled) && statSync(bundled).mtimeMs >= built;
const { main } = await import((fresh ? bundled : unbundled).href);
const code = await main(process.argv.slice(2));
// Let stdout drain (protocol frames, help text) before exiting.
process.stdout.write('', () => process.exit(code));
