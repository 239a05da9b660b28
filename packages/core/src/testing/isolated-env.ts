// A test's environment and HOME, which keep its shells and CLIs out of the developer's HOME, rc files and ptydeck directories.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

const made: string[] = [];

/**
 * A temporary directory of the test file's, removed after its tests. Imported before the file's own
 * code runs, this module registers its afterAll first, so it runs last (vitest runs after-hooks in
 * reverse): the services, hosts and shells that used the directory were disposed by then.
 */
export function fileTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Removes the file's temporary directories (fileTempDir's); what cannot go now (a process of a failed test still writing) goes with the run's directory (scripts/run-tmp.mjs). */
export function removeFileTempDirs(): void {
  for (const dir of made.splice(0)) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      // Left to the run's directory.
    }
  }
}

// Under vitest only: the e2e specs (Playwright) import kits that import this module, and vitest's afterAll
// throws outside a vitest run. Their directories go with the run's directory (scripts/e2e.mjs).
if (process.env.VITEST) afterAll(removeFileTempDirs);

/**
 * The environment for a test's service: a fresh temporary HOME and HISTFILE,
 * so no shell a test starts reads the developer's startup files or writes
 * their history; the XDG directories inside that HOME, and none of
 * ptydeck's own directory overrides, so neither does a program run in it (a
 * `ptydeck` CLI would otherwise find the developer's state or config through
 * an XDG_STATE_HOME or PTYDECK_STATE_DIR they have set). Removed after the file's tests.
 */
export function isolatedEnv(): Record<string, string | undefined> {
  const home = fileTempDir('ptydeck-test-home-');
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
 * Removed after the file's tests.
 */
export function isolatedHome(): string {
  const home = fileTempDir('ptydeck-rel-home-');
  writeFileSync(join(home, '.profile'), "PS1='rel$ '\n");
  writeFileSync(join(home, '.bashrc'), "PS1='rel$ '\n");
  return home;
}
