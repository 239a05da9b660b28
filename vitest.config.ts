import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import SlowFirstSequencer from './scripts/slow-first-sequencer.ts';

const PURE = ['packages/app/src/**/*.test.ts', 'packages/contract/src/**/*.test.ts'];

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
      // And the session store's disk thread.
      {
        find: /^\.\/store-disk-url\.js$/,
        replacement: fileURLToPath(new URL('./packages/core/src/testing/store-disk-url.ts', import.meta.url)),
      },
    ],
  },
  test: {
    environment: 'node',
    // Tests never touch the real HOME, and leave nothing in the developer's /tmp: the run gets a temporary
    // directory of its own, which is TMPDIR and holds a throwaway HOME/XDG for every worker, and which goes
    // when the run ends (scripts/run-tmp.mjs). What reaches a shell through a test process is not the
    // developer's either: a host learns its developer tabs' environment from the client's
    // /proc/<pid>/environ, which for an in-process panel is the test's.
    globalSetup: ['scripts/vitest-run-tmp.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Real PTYs and real shells on a 2-core machine: keep parallelism modest.
    maxWorkers: 2,
    // Known-slow files first, so neither worker ends the run alone on a long one (see the sequencer).
    sequence: { sequencer: SlowFirstSequencer },
    projects: [
      {
        // The renderer's and the contract's pure modules: nothing of theirs outlives a test
        // but what the module itself keeps, so their files share workers and loaded modules.
        // A process and a fresh module graph per file cost these 48 files about four times
        // their tests' own CPU time (issue: npm test near CI's 10 minutes).
        extends: true,
        test: { name: 'pure', include: PURE, isolate: false },
      },
      {
        // Real PTYs, hosts, sockets, mocks of electron: a process of its own per file.
        extends: true,
        test: {
          name: 'isolated',
          include: ['packages/*/src/**/*.test.ts', 'electron/src/**/*.test.ts', 'scripts/**/*.test.ts', 'bench/**/*.test.mjs'],
          exclude: PURE,
          globalSetup: ['scripts/vitest-build-core.ts'],
        },
      },
    ],
  },
});
