// Bundles the ptydeck CLI (built by tsc into dist/cli) into dist/bundle.
// Node's ESM loader pays per file, and the CLI's first MCP request needs the
// MCP SDK and zod: a few hundred modules. Bundled, `ptydeck serve` reaches an
// answered MCP initialize in about two thirds of the time (bench figure 7),
// and so does every `ptydeck mcp` an agent starts.
// dist/bundle sits as deep as dist/cli, so paths the code resolves from its
// own URL (the launcher, the app's dist, package.json) stay right.
//
// Two sides, two entries: main.js is the `ptydeck` command, a client of the
// host for everything but `host`, `serve` and `mcp --embedded`, and loads
// each command's client modules on demand, never the host's; host.js (and
// embedded-mcp.js) is the host, with the PTYs, screens, agent tool and chats,
// loaded by main.js only for those commands. scripts/cli-bundle.test.ts holds
// the line between them.
import { fileURLToPath } from 'node:url';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));

/** The modules `ptydeck ls`, `url` and `status` run, and what they share with every client; scripts/cli-bundle.test.ts checks they load no zod and no ws. */
const LIGHT_CLIENT =
  /[\\/](core[\\/]dist[\\/](client[\\/](ls|url|status|host-snapshot|proven-request|snapshot-check|running-host|ensure-host|host-check|host-request|panel-access|session-list)|common[\\/](?!stop-answer|jsonrpc-frame|stdio-transport)[\w-]+|proc[\\/](proc-fs|tcp-table))|contract[\\/]dist[\\/]routes)\.js$/;

/** The ESM bundle: every command, the host and its workers, in chunks. */
const bundle = {
  input: {
    main: here('./dist/cli/main.js'),
    host: here('./dist/cli/host.js'),
    'embedded-mcp': here('./dist/host/embedded-mcp.js'),
    // The screen worker is started from its own file, which the bundle finds
    // beside itself (screen-worker-url.ts): an entry of its own, same name.
    'screen-worker': here('./dist/screen/screen-worker.js'),
    // So is the PTY read thread (read-thread-url.ts).
    'read-thread-worker': here('./dist/pty/read-thread-worker.js'),
    // And the session store's disk thread (store-disk-url.ts).
    'store-disk-worker': here('./dist/persist/store-disk-worker.js'),
  },
  platform: 'node',
  // Required by codeSplitting's includeDependenciesRecursively: false; an entry may export more than its own.
  preserveEntrySignatures: 'allow-extension',
  // node-pty loads its native addon relative to its own files; ws and the
  // xterm mirror are required at run time, on first use, and stay unbundled.
  external: [/^node-pty(\/|$)/, 'bufferutil', 'utf-8-validate'],
  output: {
    dir: here('./dist/bundle'),
    format: 'esm',
    cleanDir: true,
    codeSplitting: {
      // Only the modules named: not zod, say, that a matched module's neighbour in the host imports.
      includeDependenciesRecursively: false,
      groups: [
        // `ptydeck ls`, `url` and `status` in one file: Node's loader reads a module's imports a level at a time,
        // each a few trips through its thread pool, and on a loaded machine each trip is a wait (bench figure 12).
        // None of these loads zod, ws or the MCP SDK; attach, stop and mcp, which do, stay apart.
        { name: 'client', test: LIGHT_CLIENT },
        // The one module of the MCP SDK that the host's and `mcp`'s chunks share, in a chunk of its own: left
        // to chance it lands beside rolldown's helpers, which every client loads.
        { name: 'mcp-media-type', test: /[\\/]@modelcontextprotocol[\\/]sdk[\\/]dist[\\/]esm[\\/]shared[\\/]mediaType\.js$/ },
      ],
    },
  },
  logLevel: 'warn',
};

/**
 * The light commands (`--help`, `--version`, `ls`, `url`, `status`) again, as
 * one CommonJS file the launcher requires first (cli/light-main.ts): no ESM
 * loader and its thread-pool trips per module. Built after the ESM bundle,
 * into the same directory, which it does not clean. Its one way out is the
 * zod fallback of a snapshot the hand check refuses, a chunk of its own.
 */
const light = {
  // early.cjs: the launcher opens the host's connection with it before it loads light.cjs (client/early-connection.ts).
  input: { light: here('./dist/cli/light-main.js'), early: here('./dist/client/early-connection.js') },
  platform: 'node',
  // common/lazy-builtins.ts's createRequire is the chunk's own require here (light-module-shim.mjs says why).
  resolve: { alias: { 'node:module': here('./light-module-shim.mjs') } },
  // What both entries share goes into early.cjs itself, which light.cjs then requires: one file fewer to load.
  preserveEntrySignatures: 'allow-extension',
  output: {
    dir: here('./dist/bundle'),
    format: 'cjs',
    // Escaped: a source with one character beyond ASCII is a two-byte string to V8, which the launcher decodes and V8
    // hashes and scans at twice the size; all ASCII, light.cjs loads about 0.2 ms sooner (cli-bundle.test.ts holds it).
    charset: 'ascii',
    entryFileNames: '[name].cjs',
    chunkFileNames: 'light-[name]-[hash].cjs',
  },
  logLevel: 'warn',
};

export default [bundle, light];
