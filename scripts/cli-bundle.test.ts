import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { build, type RolldownOptions } from 'rolldown';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import config from '../packages/core/rolldown.config.mjs';
import { startLocalServer } from '../packages/core/src/host/local-server.js';
import { createPtyService } from '../packages/core/src/pty/pty-service.js';
import { isolatedEnv } from '../packages/core/src/testing/isolated-env.js';
import { waitForOutput } from '../packages/core/src/testing/session-waits.js';

// Bundles the CLI as `npm run build` does, into a directory inside the core's
// dist (so the bundle's run-time requires find node_modules as the real one
// does), and checks that the screen worker made it: the bundle starts it from
// a file it expects beside itself, which rolldown only emits as an entry.
const coreDist = fileURLToPath(new URL('../packages/core/dist/', import.meta.url));
// Preloaded into a light command: which of Node's modules it loaded, and whether it built process.stdout.
const probe = fileURLToPath(new URL('../packages/core/src/testing/module-probe.cjs', import.meta.url));
const codeCache = fileURLToPath(new URL('../packages/core/bin/code-cache.js', import.meta.url));
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(coreDist, '.bundle-test-'));
  // The ESM bundle first (it cleans the directory), then the light CommonJS entry beside it.
  for (const options of config as RolldownOptions[]) await build({ ...options, output: { ...options.output, dir } });
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('the CLI bundle', () => {
  it('carries the screen worker beside the module that starts it', () => {
    const starters = readdirSync(dir).filter((name) => name.endsWith('.js') && readFileSync(join(dir, name), 'utf8').includes('new URL("./screen-worker.js", import.meta.url)'));
    expect(starters).toHaveLength(1);
    expect(existsSync(join(dir, 'screen-worker.js'))).toBe(true);
  });

  it('carries the PTY read thread beside the module that starts it', () => {
    const starters = readdirSync(dir).filter((name) => name.endsWith('.js') && readFileSync(join(dir, name), 'utf8').includes('new URL("./read-thread-worker.js", import.meta.url)'));
    expect(starters).toHaveLength(1);
    expect(existsSync(join(dir, 'read-thread-worker.js'))).toBe(true);
  });

  it('keeps the host out of every client: main.js and each client command load no PTY, screen, tool, chat, store or server module', () => {
    // Each module in a chunk starts with a `// <path>/dist/<folder>/<file>.js` line; a chunk's static imports load with it.
    const modulesOf = (chunk: string): string[] =>
      [...readFileSync(join(dir, chunk), 'utf8').matchAll(/^\/\/ (?:\S*\/)?dist\/(\S+\.js)$/gm)].map((m) => m[1]!);
    const staticImports = (chunk: string): string[] =>
      [...readFileSync(join(dir, chunk), 'utf8').matchAll(/^(?:import|export)\b[^'"\n]*?from "([^"]+)"|^import "([^"]+)"/gm)].map((m) => (m[1] ?? m[2])!);
    const staticChunks = (entry: string): string[] => {
      const seen = new Set<string>();
      const queue = [entry];
      while (queue.length > 0) {
        for (const target of staticImports(queue.pop()!)) {
          if (target.startsWith('./') && !seen.has(target.slice(2))) {
            seen.add(target.slice(2));
            queue.push(target.slice(2));
          }
        }
      }
      return [...seen];
    };
    const loaded = (entry: string): { modules: string[]; packages: string[] } => {
      const seen = new Set<string>();
      const packages = new Set<string>();
      const queue = [entry];
      while (queue.length > 0) {
        const chunk = queue.pop()!;
        if (seen.has(chunk)) continue;
        seen.add(chunk);
        for (const target of staticImports(chunk)) {
          if (target.startsWith('./')) queue.push(target.slice(2));
          else packages.add(target);
        }
      }
      return { modules: [...seen].flatMap(modulesOf), packages: [...packages] };
    };
    // The chunk that holds a command's module (several light commands share one).
    const commandChunk = (name: string) => readdirSync(dir).find((file) => file.endsWith('.js') && modulesOf(file).includes(`client/${name}.js`))!;
    const clients = ['main.js', ...['ls', 'attach', 'url', 'status', 'stop', 'open', 'mcp', 'sandbox-check'].map(commandChunk)];
    const hostOnly = /^(pty|screen|terminal-tool|chats|persist|server|host)\//;
    for (const client of clients) {
      const { modules, packages } = loaded(client);
      expect(modules.length, `${client} loads modules`).toBeGreaterThan(0);
      // pty/utf8.js is a UTF-8 helper the escape-sequence scanner (vt/) uses, no PTY.
      expect(modules.filter((module) => hostOnly.test(module) && module !== 'pty/utf8.js'), client).toEqual([]);
      expect(packages.filter((name) => name.startsWith('node-pty')), client).toEqual([]);
    }
    // `ptydeck ls`, `url`, `status` and `--version` load neither zod (the contract's schemas) nor ws nor the MCP
    // SDK: they were most of such a start (bench figure 12). A client loads them only where it needs them.
    const sources = (chunk: string): string[] => [...readFileSync(join(dir, chunk), 'utf8').matchAll(/^\/\/ (\S+\.js)$/gm)].map((m) => m[1]!);
    for (const light of [...['ls', 'url', 'status'].map(commandChunk), 'main.js']) {
      const { packages } = loaded(light);
      const chunks = [light, ...staticChunks(light)];
      // lost-note.js is text only (no schema): the light `ls` words a lost session as the panel does.
      const heavy = chunks.flatMap(sources).filter((source) => /(^|\/)node_modules\/(zod|ws|@modelcontextprotocol)\/|contract\/dist\/(?!routes\.js|lost-note\.js)/.test(source));
      expect(heavy, light).toEqual([]);
      expect(packages.filter((name) => /^(ws|zod|@modelcontextprotocol)(\/|$)/.test(name)), light).toEqual([]);
      for (const chunk of chunks) expect(readFileSync(join(dir, chunk), 'utf8'), chunk).not.toContain('("ws")');
    }
    // The light entry the launcher requires first is one CommonJS file of the same light modules: it requires
    // Node's built-ins, and only the zod fallback of a snapshot the hand check refuses, on demand.
    // `ptydeck attach` is there too, to its first frame: its own WebSocket client instead of ws, its messages checked by
    // hand instead of the contract's schemas, and of the contract only modules without a schema (its panel channel is one).
    const lightRequires = [...readFileSync(join(dir, 'light.cjs'), 'utf8').matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]!);
    const attachChunk = lightRequires.find((name) => name.startsWith('./light-attach-'))!.slice(2);
    const lightModules = [...sources('light.cjs'), ...sources(attachChunk)];
    expect(sources('light.cjs').some((source) => source.endsWith('client/attach.js')), 'ls and url do not parse attach').toBe(false);
    for (const module of ['client/ls.js', 'client/attach.js', 'client/web-socket.js', 'client/attach-messages.js']) expect(lightModules.some((source) => source.endsWith(module)), module).toBe(true);
    const schemaFree = /contract\/dist\/(routes|report|emitter|disposable|lost-note|output-frame|session-limits|panel-channel|cursor-book|terminal-counts|session-match)\.js$/;
    expect(lightModules.filter((source) => /(^|\/)node_modules\/|dist\/(pty|screen|terminal-tool|chats|persist|server|host)\//.test(source) || (/contract\/dist\//.test(source) && !schemaFree.test(source)))).toEqual([]);
    // Beside Node's built-ins: attach's chunk and the snapshot schema's, each on demand, and what they share.
    const localRequires = [attachChunk, 'light.cjs'].flatMap((chunk) => [...readFileSync(join(dir, chunk), 'utf8').matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]!)).filter((name) => !/^(node:)?[a-z_]+$/.test(name));
    // early.cjs: the connection the launcher opens before light.cjs loads (client/early-connection.ts), and what both
    // share; light.cjs: what attach's chunk shares with ls.
    for (const name of localRequires) expect(name).toMatch(/^\.\/(light-(attach|snapshot-schema|session-limits|[\w]+)-[\w-]+|early|light)\.cjs$/);
    for (const name of new Set(localRequires)) {
      if (name.includes('snapshot-schema')) continue;
      // Every chunk but the schema's fallback is schema-free: no zod, no ws.
      expect(sources(name.slice(2)).filter((source) => /node_modules\/|contract\/dist\//.test(source) && !schemaFree.test(source)), name).toEqual([]);
      expect(readFileSync(join(dir, name.slice(2)), 'utf8'), name).not.toMatch(/require\("(ws|zod)"\)/);
    }
    // `ls`, `url` and `attach` load node:crypto (a tenth of their start) only once their request is out, if at
    // all: no light chunk requires it at its top (common/random-hex.ts, server-proof.ts, web-socket.ts).
    const loadedWithLight = ['light.cjs', ...lightRequires.filter((name) => name.startsWith('./') && !/snapshot-schema/.test(name)).map((name) => name.slice(2))];
    for (const chunk of loadedWithLight) expect(readFileSync(join(dir, chunk), 'utf8'), chunk).not.toMatch(/^(let \w+ = )?require\("node:crypto"\)/m);
    // Nor node:os (a home directory $HOME names, a byte order, a signal's number) or node:child_process (`stty`, for a
    // terminal only), each a millisecond or two of such a start.
    for (const chunk of loadedWithLight) expect(readFileSync(join(dir, chunk), 'utf8'), chunk).not.toMatch(/^(let \w+ = )?require\("node:(os|child_process)"\)/m);
    // Every light chunk is ASCII (rolldown's charset: 'ascii' escapes strings, comments are kept as written): one other
    // character makes a chunk a two-byte string to V8, decoded, hashed and scanned at twice its size at every start.
    // (The zod fallback's chunk, loaded only for a snapshot the hand check refuses, keeps zod's comments.)
    for (const chunk of readdirSync(dir).filter((name) => name.endsWith('.cjs') && !name.includes('snapshot-schema'))) {
      expect(readFileSync(join(dir, chunk), 'utf8').match(/[^\x00-\x7f].{0,40}/u)?.[0], chunk).toBeUndefined();
    }
    // The host is there, in an entry of its own.
    expect(loaded('host.js').packages.some((name) => name.startsWith('node-pty'))).toBe(true);
  });

  it('runs ls, url and attach from the light entry without node:crypto or node:os; ls and url load no node:net, and write to a pipe without building process.stdout or process.stderr', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'ptydeck-light-probe-'));
    const env = { ...(Object.fromEntries(Object.entries(isolatedEnv()).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[0] !== 'PTYDECK_SESSION_ID'))), PTYDECK_STATE_DIR: stateDir };
    const service = createPtyService({ env, killGraceMs: 500 });
    const server = await startLocalServer({ service, stateDir, appDir: '/nonexistent' });
    try {
      const session = service.create({ source: 'user', command: 'sh', args: ['-c', 'echo probe-ready; exec sleep 600'], cols: 80, rows: 24 });
      // On its screen before attach asks for it, so that attach's first frame has bytes to write.
      await waitForOutput(service, session.id, 'probe-ready');
      for (const command of ['ls', 'url', 'attach']) {
        const out = join(stateDir, `probe-${command}.json`);
        // What bin/ptydeck.js does with a light command: the early connection (early.cjs), the light entry through its code
        // cache, its code once its output is written, then exit. A file, as the launcher is: `node -e` loads node:module itself.
        const launcher = join(stateDir, 'launch.cjs');
        const cache = `require(${JSON.stringify(codeCache)})`;
        writeFileSync(
          launcher,
          `${cache}.requireCached(${JSON.stringify(join(dir, 'early.cjs'))}, ${JSON.stringify(command)}).connectEarly(undefined, true);\n` +
            `${cache}.requireCached(${JSON.stringify(join(dir, 'light.cjs'))}).lightMain(process.argv.slice(2)).then((code) => process.exit(code))`,
        );
        // Not spawnSync: the server answering it runs on this thread.
        const run = await new Promise<{ status: number | null; stdout: string; stderr: string }>((done) => {
          const argv = command === 'attach' ? [command, session.id] : [command];
          const child = spawn(process.execPath, ['--require', probe, launcher, ...argv], { env: { ...env, PROBE_OUT: out }, stdio: ['pipe', 'pipe', 'pipe'] });
          let stdout = '';
          let stderr = '';
          child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
          child.stderr.on('data', (d: Buffer) => {
            stderr += d.toString();
            // Attached (its banner comes once the session's screen is on its way): Ctrl-\ d detaches.
            if (command === 'attach' && stderr.includes('attached to')) child.stdin.end('\x1cd');
          });
          if (command !== 'attach') child.stdin.end();
          child.once('close', (status) => done({ status, stdout, stderr }));
        });
        expect(run.status, run.stderr).toBe(0);
        if (command === 'attach') expect(run.stderr).toContain('detached from');
        else expect(run.stdout).toMatch(command === 'ls' ? new RegExp(session.id.slice(0, 8)) : /^http:\/\/127\.0\.0\.1:\d+\/#ticket=\S+\n$/);
        const probed = JSON.parse(readFileSync(out, 'utf8')) as { builtins: string[]; stdoutBuilt: boolean; stderrBuilt: boolean; firstWrite?: { stdoutBuilt: boolean; net: boolean } };
        // crypto: the /proof challenge's HMAC, which adds nothing where the kernel vouched for the host (client/proven-request.ts);
        // for attach, the WebSocket key, masks and accept hash (common/sha1.ts).
        expect(probed.builtins.filter((name) => ['crypto', 'os', 'child_process'].includes(name)), command).toEqual([]);
        // Nor node:module (with the source-map modules and the ESM loader it requires): the light bundle and the code cache
        // take createRequire and Module from the CommonJS loader (light-module-shim.mjs, code-cache.js).
        expect(probed.builtins.filter((name) => name === 'module'), command).toEqual([]);
        // Nor node:util's parseArgs, a module of its own that args.ts passes over for such a command line (parseOptions).
        expect(probed.builtins.filter((name) => name.startsWith('internal/util/parse_args')), command).toEqual([]);
        if (command === 'attach') {
          // Its first frame goes to the pipe before process.stdin and process.stdout are built, which load node:net: a
          // screen that comes after the snapshot is not kept waiting for them (bench figure 12).
          expect(probed.firstWrite, 'the first frame by descriptor, before process.stdout and node:net').toEqual({ stdoutBuilt: false, net: false });
          expect(run.stdout).toContain('probe-ready');
          continue;
        }
        // Nor node:net, with node:stream and a score of modules under it (3 ms of CPU, before the connection opens): the
        // early connection is a RawTcpSocket on Node's TCP binding (client/raw-tcp.ts), and the request takes it.
        expect(probed.builtins.filter((name) => name === 'net' || name === 'stream'), command).toEqual([]);
        expect(probed.stdoutBuilt, command).toBe(false);
        // Nor process.stderr, which Node builds as a socket is destroyed (client/host-request.ts takes the answer before the close).
        expect(probed.stderrBuilt, command).toBe(false);
      }
    } finally {
      await server.close();
      await service.dispose();
      rmSync(stateDir, { recursive: true, force: true });
    }
  });

  it('runs the bundled worker: a screen opened, written and read', async () => {
    const worker = new Worker(pathToFileURL(join(dir, 'screen-worker.js')));
    try {
      const replies = new Map<number, unknown>();
      const answered = new Promise<void>((resolve, reject) => {
        worker.on('error', reject);
        worker.on('message', (reply: { req: number; value?: unknown }) => {
          replies.set(reply.req, reply);
          if (reply.req === 2) resolve();
        });
      });
      worker.postMessage({ type: 'open', screen: 1, cols: 20, rows: 3, scrollback: 10 });
      worker.postMessage({ type: 'write', screen: 1, req: 1, data: new TextEncoder().encode('from the bundle'), skim: false });
      worker.postMessage({ type: 'text', screen: 1, req: 2 });
      await answered;
      // The write's buffer comes back with its done, for the host to reuse (screen-worker-host.ts).
      expect(replies.get(1)).toMatchObject({ type: 'done', req: 1 });
      expect(replies.get(2)).toEqual({ type: 'done', req: 2, value: { text: 'from the bundle', altScreen: false } });
    } finally {
      await worker.terminate();
    }
  });
});

describe("the light client's code cache", () => {
  const launcher = fileURLToPath(new URL('../packages/core/bin/code-cache.js', import.meta.url));
  let light: string;
  let cache: string;

  beforeAll(() => {
    // The light files alone, in a directory of their own beside the bundle's (for ../../package.json).
    const copy = mkdtempSync(join(coreDist, '.code-cache-test-'));
    for (const name of readdirSync(dir).filter((name) => name.endsWith('.cjs'))) copyFileSync(join(dir, name), join(copy, name));
    light = join(copy, 'light.cjs');
    cache = `${light}.${process.version}-${process.arch}.v8cache`;
  });

  afterAll(() => {
    rmSync(join(light, '..'), { recursive: true, force: true });
  });

  /** `ptydeck --version` as the launcher runs it, the cache told it is `command`; stderr says what the cache did. */
  const version = (options: { uid?: number; gid?: number } = {}, command?: string): { stdout: string; stderr: string } => {
    const script = `const cache = require(${JSON.stringify(launcher)}); cache.requireCached(${JSON.stringify(light)}, ${JSON.stringify(command)}).lightMain(['--version']).then((code) => process.stdout.write('', () => { cache.writeCaches(); process.exit(code); }))`;
    const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { ...process.env, PTYDECK_CODE_CACHE_DEBUG: '1' }, ...options });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^ptydeck \d/);
    return run;
  };

  it('is written by a first run, beside the bundle and 0600, and used by the next', () => {
    rmSync(cache, { force: true });
    const first = version();
    expect(first.stderr).toContain('code cache miss light.cjs');
    expect(first.stderr).toContain(`code cache written ${cache.split('/').at(-1)}`);
    expect(statSync(cache).mode & 0o777).toBe(0o600);
    expect(version().stderr).toContain('code cache hit light.cjs');
  });

  it('rejects a corrupt or truncated cache, still runs the command, and writes a good one', () => {
    version();
    const good = readFileSync(cache);
    const header = good.indexOf(10) + 1;
    writeFileSync(cache, Buffer.concat([good.subarray(0, header), Buffer.alloc(good.length - header, 0x5a)]), { mode: 0o600 });
    expect(version().stderr).toContain('code cache rejected light.cjs');
    expect(version().stderr).toContain('code cache hit light.cjs');
    truncateSync(cache, header + 16);
    expect(version().stderr).toContain('code cache rejected light.cjs');
    truncateSync(cache, 5);
    expect(version().stderr).toContain('code cache miss light.cjs');
    expect(version().stderr).toContain('code cache hit light.cjs');
  });

  it('ignores a symlinked cache and one made from another version of the file', () => {
    version();
    const elsewhere = `${light}.elsewhere`;
    copyFileSync(cache, elsewhere);
    rmSync(cache);
    symlinkSync(elsewhere, cache);
    const run = version();
    expect(run.stderr).toContain('code cache miss light.cjs');
    // Replaced by a file of its own, not written through the link.
    expect(lstatSync(cache).isSymbolicLink()).toBe(false);
    const later = new Date(statSync(light).mtimeMs + 1000);
    utimesSync(light, later, later);
    expect(version().stderr).toContain('code cache miss light.cjs');
    expect(version().stderr).toContain('code cache hit light.cjs');
  });

  it("grows once with each light command's functions", () => {
    rmSync(cache, { force: true });
    expect(version({}, 'ls').stderr).toContain('code cache written');
    const url = version({}, 'url').stderr;
    expect(url).toContain('code cache hit light.cjs (ls)');
    expect(url).toContain('code cache written');
    const again = version({}, 'url').stderr;
    expect(again).toContain('code cache hit light.cjs (ls,url)');
    expect(again).not.toContain('code cache written');
  });

  it('is off with PTYDECK_NO_CODE_CACHE=1', () => {
    version();
    const run = spawnSync(process.execPath, ['-e', `require(${JSON.stringify(launcher)}).requireCached(${JSON.stringify(light)}).lightMain(['--version'])`], { encoding: 'utf8', env: { ...process.env, PTYDECK_CODE_CACHE_DEBUG: '1', PTYDECK_NO_CODE_CACHE: '1' } });
    expect(run.stdout).toMatch(/^ptydeck \d/);
    expect(run.stderr).toBe('ptydeck: code cache off light.cjs\n');
  });

  it('is neither read nor written by a user who cannot write the bundle directory', () => {
    version();
    const folder = join(light, '..');
    const before = readdirSync(folder).sort();
    // Run as root, the test asks another user; otherwise, its own directory made read-only.
    const other = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;
    chmodSync(folder, 0o555);
    try {
      const run = version(other);
      expect(run.stderr).toContain(other ? 'code cache none light.cjs' : 'code cache hit light.cjs');
      expect(run.stderr).not.toContain('code cache written');
      expect(readdirSync(folder).sort()).toEqual(before);
    } finally {
      chmodSync(folder, 0o700);
    }
  });
});
