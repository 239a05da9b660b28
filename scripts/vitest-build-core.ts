// Vitest global setup: builds the core (incrementally, half a second when
// nothing changed) because its screen worker runs the built file in a worker
// thread; a test run must never exercise a stale worker.
import { execFileSync } from 'node:child_process';

export default function setup(): void {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-b', 'packages/core'], { stdio: 'inherit' });
}
