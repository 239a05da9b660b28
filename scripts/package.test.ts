import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { HOST_PROTOCOL_VERSION } from '@ptydeck/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostSandbox, processesOf, reap, type HostSandbox } from '../packages/core/src/testing/host-sandbox.js';
import { until } from '../packages/core/src/testing/poll-until.js';

// Installs ptydeck as a user would and runs the README's lines against the
// install: `npm run pack`'s tarball, `npm install -g` into a fresh prefix
// outside the checkout (so nothing resolves from the workspace), then
// `ptydeck --version`, `ptydeck mcp` under the official MCP SDK client,
// `ptydeck` and its panel page with every asset, `ptydeck url`, `ptydeck stop`.
// A file missing from the package fails here. It packs what `npm run build`
// made (npm test builds first); dependencies come from the npm cache `npm ci`
// filled, with node-pty's install script allowed as the README says.
const root = fileURLToPath(new URL('..', import.meta.url));
const version = (JSON.parse(readFileSync(join(root, 'packages', 'core', 'package.json'), 'utf8')) as { version: string }).version;
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
let dir: string;
let tarball: string;
let prefix: string;
let sandbox: HostSandbox;
let env: Record<string, string>;

function ptydeck(args: string[]) {
  const result = spawnSync('ptydeck', args, { cwd: sandbox.home, env, encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0) throw new Error(`ptydeck ${args.join(' ')} exited ${result.status}:\n${result.stdout}${result.stderr}`);
  return result.stdout;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ptydeck-package-'));
  const packed = spawnSync(process.execPath, [join(root, 'scripts', 'pack.mjs'), '--out', dir], { encoding: 'utf8' });
  if (packed.status !== 0) throw new Error(`pack failed:\n${packed.stderr}`);
  tarball = join(dir, packed.stdout.trim());
  // The size, for the CI log: the package is kept small (see scripts/pack.mjs).
  process.stdout.write(`package ${packed.stdout.trim()}: ${Math.round(statSync(tarball).size / 1024)} kB (${packed.stderr.trim()})\n`);
  prefix = join(dir, 'prefix');
  execFileSync(npm, ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', '--allow-scripts=node-pty', tarball], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'inherit'],
    shell: process.platform === 'win32',
  });
  sandbox = hostSandbox();
  env = { ...sandbox.env, PATH: `${join(prefix, 'bin')}${delimiter}${sandbox.env['PATH'] ?? ''}` };
}, 180_000);

afterAll(() => {
  if (sandbox) {
    reap(sandbox);
    rmSync(sandbox.home, { recursive: true, force: true });
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the installed ptydeck package', () => {
  it('holds the launcher, the bundle with its workers, the panel and only run-time dependencies', () => {
    const installed = join(prefix, 'lib', 'node_modules', 'ptydeck');
    for (const file of ['LICENSE', 'docs/security.md', 'bin/ptydeck.js', 'bin/code-cache.js', 'dist/bundle/main.js', 'dist/bundle/screen-worker.js', 'dist/bundle/read-thread-worker.js', 'dist/bundle/store-disk-worker.js', 'app/index.html']) {
      expect(existsSync(join(installed, file)), file).toBe(true);
    }
    expect(readdirSync(join(installed, 'dist'))).toEqual(['bundle']);
    // No source maps, and no code cache of the machine that packed it (each install makes its own, if it may).
    expect(readdirSync(join(installed, 'dist', 'bundle')).filter((name) => /\.(map|v8cache)$/.test(name))).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest).toMatchObject({ name: 'ptydeck', version, license: 'MIT', bin: { ptydeck: 'bin/ptydeck.js' }, engines: { node: '>=20' } });
    expect(Object.keys(manifest['dependencies'] as object).sort()).toEqual(['@xterm/addon-serialize', '@xterm/headless', 'node-pty', 'ws']);
    expect(manifest).not.toHaveProperty('devDependencies');
  });

  it('ptydeck --version prints the package and host protocol versions', () => {
    expect(ptydeck(['--version'])).toBe(`ptydeck ${version} (host protocol ${HOST_PROTOCOL_VERSION})\n`);
  });

  it('ptydeck mcp, under the MCP SDK client, lists the eight tools and runs `echo ok`', async () => {
    const client = new Client({ name: 'package-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: 'ptydeck', args: ['mcp'], env, cwd: sandbox.home, stderr: 'ignore' }));
    try {
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(8);
      expect(tools.map((tool) => tool.name)).toContain('terminal_run');
      const ran = (await client.callTool({ name: 'terminal_run', arguments: { command: 'echo ok' } })) as { content: { type: string; text: string }[] };
      expect(ran.content.map((part) => part.text).join('\n')).toMatch(/^ok$/m);
    } finally {
      await client.close();
    }
  });

  it('ptydeck prints a link whose page loads with every asset it references', async () => {
    const out = ptydeck([]);
    const link = /(http:\/\/127\.0\.0\.1:\d+\/#ticket=\S+)/.exec(out)?.[1];
    if (!link) throw new Error(`no panel link in:\n${out}`);
    const page = new URL(link);
    const index = await fetch(new URL(page.pathname, page));
    expect(index.status).toBe(200);
    const html = await index.text();
    const assets = [...html.matchAll(/<(?:script|link)\b[^>]*?\b(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(assets.length).toBeGreaterThan(0);
    for (const asset of assets) {
      const response = await fetch(new URL(asset, page));
      expect(response.status, asset).toBe(200);
      expect((await response.arrayBuffer()).byteLength, asset).toBeGreaterThan(0);
    }
  });

  it('ptydeck url prints a fresh link; ptydeck stop --force leaves no process behind', async () => {
    expect(ptydeck(['url'])).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#ticket=\S+\n$/);
    ptydeck(['stop', '--force']);
    await until(() => processesOf(sandbox.stateDir).length === 0, 'no process carries the sandbox state directory');
  });

  it('npx -y ./ptydeck-<version>.tgz runs it too', () => {
    const cache = execFileSync(npm, ['config', 'get', 'cache'], { encoding: 'utf8', shell: process.platform === 'win32' }).trim();
    const npxCache = join(cache, '_npx');
    try {
      // The sandbox's HOME has no npm cache: name the one `npm ci` filled.
      const result = spawnSync(process.platform === 'win32' ? 'npx.cmd' : 'npx', ['-y', '--prefer-offline', `./${tarball.split(/[\\/]/).at(-1)}`, '--version'], {
        cwd: dir,
        env: { ...env, npm_config_cache: cache },
        encoding: 'utf8',
        shell: process.platform === 'win32',
      });
      expect(result.stdout, result.stderr).toBe(`ptydeck ${version} (host protocol ${HOST_PROTOCOL_VERSION})\n`);
    } finally {
      // npx keeps each tarball's install in the npm cache's _npx; this one names our temporary directory.
      for (const entry of existsSync(npxCache) ? readdirSync(npxCache) : []) {
        const manifest = join(npxCache, entry, 'package.json');
        if (existsSync(manifest) && readFileSync(manifest, 'utf8').includes(resolve(dir).slice(1))) rmSync(join(npxCache, entry), { recursive: true, force: true });
      }
    }
  });
});
