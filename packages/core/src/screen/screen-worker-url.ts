/**
 * Where the screen worker's entry is: emitted beside this module, by tsc
 * (dist/screen/screen-worker.js) and by rolldown, which bundles it as an entry
 * of its own next to the CLI (dist/bundle/screen-worker.js). Its own module so
 * the tests, which run this package from source, can point it at the built
 * file instead (vitest.config.ts): a worker thread cannot load TypeScript.
 */
export const SCREEN_WORKER_URL = new URL('./screen-worker.js', import.meta.url);
