import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import SlowFirstSequencer from './scripts/slow-first-sequencer.ts';

// The files that share workers and loaded modules (the `shared` project): the renderer's and the contract's,
// and those of the core, Electron, scripts and bench whose tests mock no module, leave no process, host,
// socket or timer behind, and put back what they change of process.env. Vitest restores spies after each
// file; isolated-env's temporary directories go after each file (shared-worker-setup.ts). A file that
// needs a process of its own stays off this list, and a new file is isolated until it is put here.
const SHARED = [
  'packages/app/src/**/*.test.ts',
  'packages/contract/src/**/*.test.ts',
  'bench/lib/memory-probe.test.mjs',
  'bench/lib/paired-ratio.test.mjs',
  'bench/lib/panel-client.test.mjs',
  'bench/lib/thread-cpu.test.mjs',
  'bench/lib/worst-of.test.mjs',
  'electron/src/main/bridge.test.ts',
  'electron/src/main/csp.test.ts',
  'electron/src/main/desktop.test.ts',
  'electron/src/main/fd-limit.test.ts',
  'electron/src/main/guards.test.ts',
  'electron/src/main/host-connection.test.ts',
  'electron/src/main/origin.test.ts',
  'electron/src/main/quit.test.ts',
  'electron/src/preload/preload.test.ts',
  'packages/core/src/capability/terminal-capability.test.ts',
  'packages/core/src/chats/agent-choices.test.ts',
  'packages/core/src/chats/agents-config.test.ts',
  'packages/core/src/chats/approved-edits.test.ts',
  'packages/core/src/chats/chat-events.test.ts',
  'packages/core/src/chats/chat-log.test.ts',
  'packages/core/src/cli/args.test.ts',
  'packages/core/src/client/detach-keys.test.ts',
  'packages/core/src/client/ensure-host.test.ts',
  'packages/core/src/client/output-filter.test.ts',
  'packages/core/src/client/remote.test.ts',
  'packages/core/src/client/session-list.test.ts',
  'packages/core/src/client/snapshot-check.test.ts',
  'packages/core/src/client/stop.test.ts',
  'packages/core/src/client/ws-frames.test.ts',
  'packages/core/src/common/jsonrpc-frame.test.ts',
  'packages/core/src/common/loop-turn.test.ts',
  'packages/core/src/common/mcp-launch.test.ts',
  'packages/core/src/common/printable.test.ts',
  'packages/core/src/common/random-hex.test.ts',
  'packages/core/src/common/sha1.test.ts',
  'packages/core/src/common/stdio-transport.test.ts',
  'packages/core/src/host/host-config.test.ts',
  'packages/core/src/proc/tcp-table.test.ts',
  'packages/core/src/pty/flood-turns.test.ts',
  'packages/core/src/pty/process-facts.test.ts',
  'packages/core/src/pty/read-thread-protocol.test.ts',
  'packages/core/src/pty/report-poster.test.ts',
  'packages/core/src/pty/session-labels.test.ts',
  'packages/core/src/pty/title-tracker.test.ts',
  'packages/core/src/remote/channel-frames.test.ts',
  'packages/core/src/remote/remote-relay.test.ts',
  'packages/core/src/remote/remotes-config.test.ts',
  'packages/core/src/sandbox/direnv-named.test.ts',
  'packages/core/src/sandbox/dot-links.test.ts',
  'packages/core/src/sandbox/passwd-homes.test.ts',
  'packages/core/src/screen/background-pacing.test.ts',
  'packages/core/src/screen/command-places.test.ts',
  'packages/core/src/screen/mode-changes.test.ts',
  'packages/core/src/screen/parser-warm-up.test.ts',
  'packages/core/src/screen/screen-mirror.test.ts',
  'packages/core/src/screen/scrollback-shares.test.ts',
  'packages/core/src/server/agent-registry.test.ts',
  'packages/core/src/server/viewer-window.test.ts',
  'packages/core/src/terminal-tool/execute-strategy.test.ts',
  'packages/core/src/terminal-tool/input-prompts.test.ts',
  'packages/core/src/terminal-tool/keys.test.ts',
  'packages/core/src/terminal-tool/model-text.test.ts',
  'packages/core/src/terminal-tool/output-view.test.ts',
  'packages/core/src/terminal-tool/pattern-matcher.test.ts',
  'packages/core/src/terminal-tool/terminal-stream.test.ts',
  'packages/core/src/testing/isolated-env.test.ts',
  'packages/core/src/timeline/session-commands.test.ts',
  'packages/core/src/vt/sequence-scanner.test.ts',
  'packages/core/src/vt/utf8.test.ts',
  'scripts/docs.test.ts',
  'scripts/electron-binary.test.ts',
  'scripts/slow-first-sequencer.test.ts',
];

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
        // Nothing of these files outlives a test but what a module itself keeps, so they share workers
        // and loaded modules. A process and a fresh module graph per file cost the renderer's and the
        // contract's 48 files about four times their tests' own CPU time, and 49 of the others 21 s of
        // CPU where sharing takes 8 (issue: npm test near CI's 10 minutes).
        extends: true,
        test: { name: 'shared', include: SHARED, isolate: false, setupFiles: ['packages/core/src/testing/shared-worker-setup.ts'] },
      },
      {
        // Real PTYs, hosts, sockets, mocks of electron: a process of its own per file. What a fresh process costs
        // is loading the modules, not transforming them: vitest transforms each module once per run and hands
        // the forks its output, so experimental.fsModuleCache (transforms kept on disk across runs) saved nothing
        // measurable from an empty cache, as CI has (a whole run's CPU 319 s without, 314 s with; 78 small files
        // 85 s against 84 s, two rounds), and experimental.viteModuleRunner: false needs Node 22's type stripping.
        extends: true,
        test: {
          name: 'isolated',
          include: ['packages/*/src/**/*.test.ts', 'electron/src/**/*.test.ts', 'scripts/**/*.test.ts', 'bench/**/*.test.mjs'],
          exclude: SHARED,
          globalSetup: ['scripts/vitest-build-core.ts'],
        },
      },
    ],
  },
});
