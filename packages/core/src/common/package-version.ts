// The version of the ptydeck package this process runs, for `ptydeck --version` and `ptydeck status`.
import { readFileSync } from 'node:fs';

let cached: string | undefined;

/** The package's version; read once. */
export function packageVersion(): string {
  // src/server, dist/server and dist/bundle all sit two levels below the package root
  // (the installed package's own package.json, written by scripts/pack.mjs).
  cached ??= (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string }).version ?? '0.0.0';
  return cached;
}

/** Epoch milliseconds when this process started: what its uptime counts from. */
export const PROCESS_STARTED_AT = Date.now() - Math.round(process.uptime() * 1000);
