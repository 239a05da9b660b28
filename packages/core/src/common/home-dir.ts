// The user's home directory, as os.homedir() gives it, without loading node:os where $HOME names it.
import { nodeOs } from './lazy-builtins.js';

/**
 * $HOME when set (os.homedir() reads it first too), else the password
 * database's, through node:os. A short command (`ptydeck ls`) would load
 * node:os for this alone: about 1 ms of a 45 ms start (bench figure 12).
 */
export function homeDirectory(env: Record<string, string | undefined> = process.env): string {
  return env.HOME || nodeOs().homedir();
}
