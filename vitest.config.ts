import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Unit and integration tests sit beside the code (*.test.ts). They run in Node:
// the app's tests cover its pure modules (reducers, protocol client logic).
export default defineConfig({
  resolve: {
    alias: [
      // The core's screen worker runs in a worker thread, which loads the built file (see that module).
      {
        find: /^\.\/screen-worker-url\.js$/,
        replacement: fileURLToPath(new URL('./packages/core/src/testing/screen-worker-url.ts', import.meta.url)),
      },
      // So does the PTY read thread.
      {
        find: /^\.\/read-thread-url\.js$/,
        replacement: fileURLToPath(new URL('./packages/core/src/testing/read-thread-url.ts', import.meta.url)),
      },
    ],
  },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'electron/src/**/*.test.ts', 'scripts/**/*.test.ts', 'bench/**/*.test.mjs'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Real PTYs and real shells on a 2-core machine: keep parallelism modest.
    maxWorkers: 2,
    globalSetup: ['scripts/vitest-build-core.ts'],
  },
});
