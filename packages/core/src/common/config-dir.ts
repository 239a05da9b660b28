// Where ptydeck's configuration is: read by the host (agents.json, config.json) and by clients (remotes.json).
import { join } from 'node:path';
import { homeDirectory } from './home-dir.js';

/** $PTYDECK_CONFIG_DIR, else $XDG_CONFIG_HOME/ptydeck, else ~/.config/ptydeck. Empty values count as unset. */
export function resolveConfigDir(env: Record<string, string | undefined> = process.env): string {
  if (env.PTYDECK_CONFIG_DIR) return env.PTYDECK_CONFIG_DIR;
  if (env.XDG_CONFIG_HOME) return join(env.XDG_CONFIG_HOME, 'ptydeck');
  return join(homeDirectory(env), '.config', 'ptydeck');
}
