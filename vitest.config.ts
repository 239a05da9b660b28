import { defineConfig } from 'vitest/config';

// Unit and integration tests sit beside the code (*.test.ts). They run in Node:
// the app's tests cover its pure modules (reducers, protocol client logic).
export default defineConfig({
  test: {
    include: ['packages/*/src/**/*.test.ts', 'electron/src/**/*.test.ts', 'scripts/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Real PTYs and real shells on a 2-core machine: keep parallelism modest.
    maxWorkers: 2,
  },
});
