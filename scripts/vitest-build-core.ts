// Vitest global setup: builds the core (incrementally, half a second when
// nothing changed) because its screen worker runs the built file in a worker
// thread; a test run must never exercise a stale worker. The CLI's bundle
// (dist/bundle, what `ptydeck` runs) is rebuilt when the build is newer than
// it: tests that start the CLI ran the old bundle against a newer build and
// failed without saying why.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The newest modification time of a JavaScript file under `dir` (0 when there is none), skipping `skip`. */
function newest(dir: string, skip?: string): number {
  let latest = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (path === skip) continue;
    // Not the code caches the CLI writes beside its bundle as it runs (a stale bundle's run writes them too).
    if (entry.isDirectory()) latest = Math.max(latest, newest(path, skip));
    else if (/\.[cm]?js$/.test(entry.name)) latest = Math.max(latest, statSync(path).mtimeMs);
  }
  return latest;
}

export default function setup(): void {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-b', 'packages/core'], { stdio: 'inherit' });
  const bundle = 'packages/core/dist/bundle';
  if (newest('packages/core/dist', bundle) > newest(bundle)) {
    execFileSync(process.execPath, ['node_modules/rolldown/bin/cli.mjs', '-c', 'packages/core/rolldown.config.mjs'], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
}
