/**
 * The session store's disk thread's entry for tests, which run the core from
 * source: the built file. vitest.config.ts swaps this module in for
 * persist/store-disk-url.ts; its global setup builds the core first.
 */
export const STORE_DISK_URL = new URL('../../dist/persist/store-disk-worker.js', import.meta.url);
