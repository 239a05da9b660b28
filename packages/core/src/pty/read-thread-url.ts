/**
 * Where the read thread's entry is: emitted beside this module by tsc
 * (dist/pty/read-thread-worker.js) and by rolldown, which bundles it as an
 * entry of its own next to the CLI (dist/bundle/read-thread-worker.js). Its
 * own module so the tests, which run this package from source, can point it
 * at the built file instead (vitest.config.ts).
 */
export const READ_THREAD_URL = new URL('./read-thread-worker.js', import.meta.url);
