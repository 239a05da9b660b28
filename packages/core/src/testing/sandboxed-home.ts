// A HOME laid out as a developer's, for tests of agents' sandboxed shells.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SandboxConfig, sandboxContext, type SandboxSettings } from '../sandbox/sandbox-config.js';

/**
 * Lays out `home` as a developer's: a .bashrc with a bare prompt, a private
 * key under ~/.ssh (what the sandbox must hide), a project directory to work
 * in and ptydeck's state directory; with sandbox settings that give every
 * owner the `workspace` profile, explicitly (no fallback to no sandbox).
 */
export function sandboxedHome(home: string): { workspace: string; sandbox: SandboxSettings } {
  writeFileSync(join(home, '.bashrc'), 'PS1="$ "\n');
  mkdirSync(join(home, '.ssh'), { mode: 0o700 });
  writeFileSync(join(home, '.ssh', 'id_test'), 'PRIVATE-KEY-MATERIAL\n');
  const workspace = mkdtempSync(join(home, 'project-'));
  const stateDir = join(home, '.local', 'state', 'ptydeck');
  const configDir = join(home, '.config', 'ptydeck');
  mkdirSync(stateDir, { recursive: true });
  const sandbox: SandboxSettings = {
    forOwner: () => ({ choice: { profile: 'workspace', explicit: true }, context: sandboxContext({ stateDir, configDir, config: SandboxConfig.parse({}) }) }),
  };
  return { workspace, sandbox };
}
