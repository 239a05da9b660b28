/**
 * The screen worker's entry for tests, which run the core from source: the
 * built file, since a worker thread cannot load TypeScript. vitest.config.ts
 * swaps this module in for screen/screen-worker-url.ts, and its global setup
 * (scripts/vitest-build-core.ts) builds the core first, so the worker is never stale.
 */
export const SCREEN_WORKER_URL = new URL('../../dist/screen/screen-worker.js', import.meta.url);
