// The command an agent on this machine runs to reach ptydeck, shown in the overview's snippets.
import { existsSync, realpathSync } from 'node:fs';
import { basename, delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { McpLaunch } from '@ptydeck/contract';

/**
 * The command an agent on this machine runs to reach ptydeck over stdio: plain
 * `ptydeck mcp` when the `ptydeck` on PATH is this very launcher (the package
 * installed with `npm install -g`), else this launcher by its absolute path (a
 * checkout, or a copy run through npx that PATH does not know). ptydeck is not
 * on the npm registry, so `npx ptydeck` would fetch nothing, or someone else's
 * package.
 */
export function mcpLaunchCommand(): McpLaunch {
  const launcher = ptydeckLauncher();
  return onPath(launcher) ? { command: 'ptydeck', args: ['mcp'] } : { command: 'node', args: [launcher, 'mcp'] };
}

/** This installation's `ptydeck` launcher, absolute. */
export function ptydeckLauncher(): string {
  // dist/server/mcp-launch.js (and dist/bundle/*.js) → bin/ptydeck.js
  return fileURLToPath(new URL('../../bin/ptydeck.js', import.meta.url));
}

/**
 * Whether the first `ptydeck` on PATH is (a link to) this launcher. npm
 * scripts and npx put node_modules/.bin dirs on PATH, which link a checkout's
 * launcher too, but an agent started elsewhere would not find it there.
 */
function onPath(launcher: string): boolean {
  if (!existsSync(launcher)) return false;
  const target = realpathSync(launcher);
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (!dir || (basename(dir) === '.bin' && basename(dirname(dir)) === 'node_modules')) continue;
    // existsSync follows links: a dangling one is no ptydeck.
    const found = join(dir, 'ptydeck');
    if (existsSync(found)) return realpathSync(found) === target;
  }
  return false;
}
