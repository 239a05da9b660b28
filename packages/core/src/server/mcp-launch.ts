import { fileURLToPath } from 'node:url';
import type { McpLaunch } from '@ptydeck/contract';

/**
 * The command an agent on this machine runs to reach ptydeck over stdio. ptydeck
 * is not on the npm registry, so `npx ptydeck` would fetch nothing (or someone
 * else's package): the panel's set-up snippets name this checkout's launcher.
 */
export function mcpLaunchCommand(): McpLaunch {
  return { command: 'node', args: [ptydeckLauncher(), 'mcp'] };
}

/** This checkout's `ptydeck` launcher, absolute. */
export function ptydeckLauncher(): string {
  // dist/server/mcp-launch.js (and dist/bundle/*.js) → packages/core/bin/ptydeck.js
  return fileURLToPath(new URL('../../bin/ptydeck.js', import.meta.url));
}
