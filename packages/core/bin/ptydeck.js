#!/usr/bin/env node
// Thin launcher: the CLI lives in dist (built by `npx tsc -b`).
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('ptydeck: the core is not built; run `npm run build` (or `npx tsc -b`) in the ptydeck checkout\n');
  process.exit(1);
}
const { main } = await import(entry.href);
const code = await main(process.argv.slice(2));
// Let stdout drain (protocol frames, help text) before exiting.
process.stdout.write('', () => process.exit(code));
