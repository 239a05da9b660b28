/**
 * Where the session store's disk thread's entry is: emitted beside this module
 * by tsc (dist/persist/store-disk-worker.js) and by rolldown, which bundles it
 * as an entry of its own next to the CLI (dist/bundle/store-disk-worker.js).
 * Its own module so the tests, which run this package from source, can point
 * it at the built file instead (vitest.config.ts).
 */
export const STORE_DISK_URL = new URL('./store-disk-worker.js', import.meta.url);
