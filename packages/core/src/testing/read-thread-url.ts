/**
 * The read thread's entry for tests: the built file, since a worker thread
 * cannot load TypeScript. vitest.config.ts swaps this module in for
 * pty/read-thread-url.ts; its global setup builds the core first.
 */
export const READ_THREAD_URL = new URL('../../dist/pty/read-thread-worker.js', import.meta.url);
