// A test's environment and HOME, which keep its shells and CLIs out of the developer's HOME, rc files and ptydeck directories.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The environment for a test's service: a fresh temporary HOME and HISTFILE,
 * so no shell a test starts reads the developer's startup files or writes
 * their history; the XDG directories inside that HOME, and none of
 * ptydeck's own directory overrides, so neither does a program run in it (a
 * `ptydeck` CLI would otherwise find the developer's state or config through
 * an XDG_STATE_HOME or PTYDECK_STATE_DIR they have set).
 */
export function isolatedEnv(): Record<string, string | undefined> {
  const home = mkdtempSync(join(tmpdir(), 'ptydeck-test-home-'));
  return {
    ...process.env,
    HOME: home,
    HISTFILE: join(home, '.bash_history'),
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    PTYDECK_STATE_DIR: undefined,
    PTYDECK_CONFIG_DIR: undefined,
  };
}

/**
 * A HOME of its own with a plain prompt, so spawned shells never read the
 * machine's rc files (a slow pyenv init would make the suite measure dotfiles).
 */
export function isolatedHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'ptydeck-rel-home-'));
  writeFileSync(join(home, '.profile'), "PS1='rel$ '\n");
  writeFileSync(join(home, '.bashrc'), "PS1='rel$ '\n");
  return home;
}
