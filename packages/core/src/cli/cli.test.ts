import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { HOST_PROTOCOL_VERSION } from '@ptydeck/contract';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startLocalServer, type LocalServer } from '../host/local-server.js';
import { writeDiscovery } from '../common/discovery.js';
import { exchangeTicket, openSocket } from '../testing/http.js';
import { until } from '../testing/poll-until.js';
import { hostSandbox, processesOf, reap, type HostSandbox } from '../testing/host-sandbox.js';

const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = join(packageRoot, 'bin', 'ptydeck.js');
const repoRoot = resolve(packageRoot, '..', '..');

beforeAll(() => {
  // The launcher runs the built CLI: build it as the real package would be.
  const build = spawnSync(process.execPath, [join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', 'packages/core'], {
    cwd: repoRoot,
    encoding: 'utf8',
  });
  if (!existsSync(join(packageRoot, 'dist', 'cli', 'main.js'))) throw new Error(`build failed:\n${build.stdout}${build.stderr}`);
}, 120_000);

/** The test runner may force colour for itself; the CLI under test sees a plain pipe unless a test says otherwise. */
// Nor does it run inside a ptydeck session, even when the tests do (`ptydeck url` would refuse it).
const baseEnv: Record<string, string> = Object.fromEntries(
  Object.entries(process.env).filter(
    (entry): entry is [string, string] => entry[1] !== undefined && !['FORCE_COLOR', 'CLICOLOR_FORCE', 'NO_COLOR', 'PTYDECK_SESSION_ID'].includes(entry[0]),
  ),
);

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

function run(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: { ...baseEnv, ...env } });
}

function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/**
 * A state directory and HOME of the test's own: `ptydeck mcp` starts a detached
 * host when none answers, and every process of it is reaped after the test.
 */
const sandboxes = new Map<string, HostSandbox>();
function stateDir(): string {
  const sandbox = hostSandbox();
  sandboxes.set(sandbox.stateDir, sandbox);
  return sandbox.stateDir;
}

/** The environment a CLI child runs with for the state directory `dir`. */
function envOf(dir: string): Record<string, string> {
  return sandboxes.get(dir)?.env ?? envOf(dir);
}

afterEach(async () => {
  for (const sandbox of [...sandboxes.values()]) {
    reap(sandbox);
    await until(() => processesOf(sandbox.stateDir).length === 0, `no process of ${sandbox.stateDir} is left`);
  }
  sandboxes.clear();
});

describe('ptydeck CLI conventions', () => {
  it('colours follow the capability module: FORCE_COLOR turns them on for a pipe, NO_COLOR wins otherwise', () => {
    expect(run(['serve', '--port', 'x'], { FORCE_COLOR: '1' }).stderr).toContain('\x1b[31m');
    expect(run(['serve', '--port', 'x'], { NO_COLOR: '1', TERM: 'xterm-256color' }).stderr).not.toContain('\x1b[');
  });

  it('--help at every level, --version, exit 0', () => {
    for (const args of [['--help'], ['serve', '--help'], ['mcp', '--help'], ['url', '--help'], ['help', 'serve']]) {
      const result = run(args);
      expect(result.status, args.join(' ')).toBe(0);
      expect(result.stdout).toMatch(/^Usage: ptydeck/);
    }
    const version = run(['--version']);
    expect(version.status).toBe(0);
    expect(version.stdout).toBe(`ptydeck ${JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')).version} (host protocol ${HOST_PROTOCOL_VERSION})\n`);
  });

  it('bad arguments exit 2 with expected vs received, the usage line and a pointer to --help on stderr', () => {
    const result = run(['serve', '--port', 'eighty']);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain("--port expects an integer from 0 to 65535, received 'eighty'");
    expect(result.stderr).toContain('Usage: ptydeck serve [--port N] [--host H]');
    expect(result.stderr).toContain("Run 'ptydeck serve --help'");
    expect(result.stderr).not.toContain('\x1b[');
    expect(run(['frobnicate']).status).toBe(2);
    expect(run(['mcp', '--nope']).status).toBe(2);
  });
});

/** Starts `ptydeck serve` and resolves once it printed its panel URL. */
async function startServe(dir: string): Promise<{ child: ChildProcess; panelUrl: string; stdout: () => string; stderr: () => string }> {
  const child = spawn(process.execPath, [bin, 'serve'], { env: envOf(dir), stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const panelUrl = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const match = /Open the panel[^:]*: (\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
  return { child, panelUrl, stdout: () => out, stderr: () => err };
}

describe('ptydeck serve', () => {
  it('prints a one-time panel URL, writes discovery 0600, and on SIGTERM ends its sessions, removes discovery and exits 143', async () => {
    const dir = stateDir();
    const { child, panelUrl, stdout } = await startServe(dir);
    const file = join(dir, 'server.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const record = JSON.parse(readFileSync(file, 'utf8'));
    expect(record.pid).toBe(child.pid);
    expect(panelUrl.startsWith(`${record.url}/#ticket=`)).toBe(true);
    expect(stdout()).not.toContain(record.token);
    // The printed link is the way in; the token on disk is agent scope and does not open the panel.
    const port = Number(new URL(record.url).port);
    const exchanged = await exchangeTicket(panelUrl);
    expect(exchanged.status).toBe(200);
    const panelToken = (JSON.parse(exchanged.body) as { token: string }).token;
    expect(panelToken).not.toBe(record.token);
    expect(readFileSync(file, 'utf8')).not.toContain(panelToken);
    expect(await openSocket(port, { headers: { Origin: record.url }, protocols: [`ptydeck.token.${record.token}`] })).toEqual({ refused: 401 });
    const panel = await openSocket(port, { headers: { Origin: record.url }, protocols: ['ptydeck.v1', `ptydeck.token.${panelToken}`] });
    expect('ws' in panel).toBe(true);
    if ('ws' in panel) panel.ws.close();

    // An agent session that must not outlive the server.
    const client = new Client({ name: 'cli-test', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL('/mcp', record.url), {
      // Unsandboxed: the pid checked below is this machine's, which a sandboxed session's result does not give.
      requestInit: { headers: { Authorization: `Bearer ${record.token}`, 'x-ptydeck-sandbox': 'off' } },
    });
    await client.connect(transport);
    const made = (await client.callTool({ name: 'terminal_create', arguments: { command: 'sleep', args: ['300'] } })) as unknown as {
      structuredContent: { pid: number };
    };
    const pid = made.structuredContent.pid;
    expect(() => process.kill(pid, 0)).not.toThrow();
    await client.close();

    child.kill('SIGTERM');
    expect(await exitOf(child)).toBe(143);
    expect(existsSync(file)).toBe(false);
    expect(() => process.kill(pid, 0)).toThrow();
  });

  it('replaces a stale discovery file, and exits 130 on SIGINT', async () => {
    const dir = stateDir();
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    writeDiscovery({ url: 'http://127.0.0.1:9', token: 'old', pid: dead, instance: 'old' }, dir);
    const { child, stderr } = await startServe(dir);
    const note = `replaced a stale ${join(dir, 'server.json')} (pid ${dead} is gone)`;
    // stderr and stdout are separate pipes: the note may arrive after the URL.
    while (!stderr().includes(note)) await new Promise((resolve) => child.stderr!.once('data', resolve));
    expect(JSON.parse(readFileSync(join(dir, 'server.json'), 'utf8')).pid).toBe(child.pid);
    child.kill('SIGINT');
    expect(await exitOf(child)).toBe(130);
  });
});

/** `ptydeck mcp` driven by hand: one initialize request, stdout collected. */
function rawMcp(dir: string) {
  const child = spawn(process.execPath, [bin, 'mcp'], { env: envOf(dir), stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(child);
  const out = { text: '' };
  child.stdout!.on('data', (d: Buffer) => (out.text += d.toString()));
  child.stdin!.write(
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }) + '\n',
  );
  return { child, out };
}

function firstLine(child: ChildProcess, out: { text: string }): Promise<void> {
  return new Promise<void>((resolve) => {
    const check = () => out.text.includes('\n') && resolve();
    check();
    child.stdout!.on('data', check);
  });
}

describe('ptydeck mcp', () => {
  let server: LocalServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  function stdioClient(dir: string, args: string[] = []) {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [bin, 'mcp', ...args],
      env: envOf(dir),
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    return { transport, client: new Client({ name: 'stdio-agent', version: '2.0.0' }), stderr: () => stderr };
  }

  it('joins a running ptydeck through the discovery file: its sessions appear there', async () => {
    const dir = stateDir();
    server = await startLocalServer({ stateDir: dir, appDir: '/nonexistent' });
    const { transport, client, stderr } = stdioClient(dir);
    await client.connect(transport);
    const made = (await client.callTool({ name: 'terminal_create', arguments: { command: 'sleep', args: ['30'] } })) as unknown as {
      structuredContent: { id: string };
    };
    expect(server.service.get(made.structuredContent.id)).toMatchObject({ source: 'agent', ownerName: 'stdio-agent' });
    expect(server.agents.list()).toEqual([expect.objectContaining({ name: 'stdio-agent', version: '2.0.0', transport: 'stdio' })]);
    expect(stderr()).toContain('connected to the running ptydeck');
    // What the agent is told at initialize: its terminals are in the host's panel.
    expect(client.getInstructions()).toMatch(/^ptydeck gives you real terminals that the developer can watch live in ptydeck's panel/);
    expect((await client.listTools()).tools.find((t) => t.name === 'terminal_create')?.description).toContain('a tab in the ptydeck panel');
    await client.close();
    // The session stays in the running ptydeck; the agent leaves the panel.
    expect(server.service.get(made.structuredContent.id)?.status).toBe('running');
  });

  it('stops with one line naming both host protocols when the running host speaks another, and starts nothing', async () => {
    const dir = stateDir();
    server = await startLocalServer({ stateDir: dir, appDir: '/nonexistent' });
    const record = JSON.parse(readFileSync(join(dir, 'server.json'), 'utf8'));
    // A host from before the protocol existed: its discovery file says nothing of one.
    delete record.protocol;
    writeDiscovery(record, dir);
    // Not spawnSync: the server answering the proof runs in this very process.
    const child = spawn(process.execPath, [bin, 'mcp'], { env: envOf(dir), stdio: ['pipe', 'pipe', 'pipe'] });
    const result = { stdout: '', stderr: '' };
    child.stdout!.on('data', (d: Buffer) => (result.stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (result.stderr += d.toString()));
    expect(await exitOf(child)).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `ptydeck: the running ptydeck host (pid ${process.pid}) speaks host protocol 0, this ptydeck speaks ${HOST_PROTOCOL_VERSION}: run \`ptydeck stop\` (it ends the sessions in it), then try again\n`,
    );
    expect(processesOf(dir)).toEqual([]);
  });

  it('answers with a clear error, not a hang, when the ptydeck it joined goes away', async () => {
    const dir = stateDir();
    server = await startLocalServer({ stateDir: dir, appDir: '/nonexistent' });
    const { transport, client } = stdioClient(dir);
    await client.connect(transport);
    await server.close();
    server = undefined;
    expect(await client.callTool({ name: 'terminal_list', arguments: {} })).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/this session is gone/) }] });
    await client.close();
  });

  it('sends nothing to a foreign process on the discovered port: the server must prove it knows the token first', async () => {
    // server.json names a live pid (this test's) and a port another process now listens on.
    const seen: string[] = [];
    const foreign = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        seen.push(`${req.method} ${req.url} ${JSON.stringify(req.headers)} ${body}`);
        // It answers like ptydeck would, as best it can without the token.
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ proof: '0'.repeat(64) }));
      });
    });
    await new Promise<void>((done) => foreign.listen(0, '127.0.0.1', done));
    try {
      const dir = stateDir();
      const { port } = foreign.address() as AddressInfo;
      writeDiscovery({ url: `http://127.0.0.1:${port}`, token: 'the-real-token-0123456789', pid: process.pid, instance: 'taken' }, dir);
      const { transport, client, stderr } = stdioClient(dir);
      await client.connect(transport);
      await client.listTools();
      expect(stderr()).toContain('did not prove it is the ptydeck');
      // It started a host of its own instead, which took over the discovery file.
      expect(stderr()).toContain('no ptydeck host was running; started one');
      await client.close();
      // One challenge, nothing else: no token, no MCP traffic.
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatch(/^GET \/proof\?challenge=[0-9a-f]{64} /);
      expect(seen.join('\n')).not.toContain('the-real-token');
    } finally {
      foreign.closeAllConnections();
      await new Promise<void>((done) => foreign.close(() => done()));
    }
  });

  it('with --embedded, runs an embedded core even though it could start a host, says so on stderr, and exits 0 on stdin EOF', async () => {
    const dir = stateDir();
    const { transport, client, stderr } = stdioClient(dir, ['--embedded']);
    await client.connect(transport);
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['terminal_create', 'terminal_run', 'terminal_close']));
    expect(stderr()).toContain('running an embedded core (--embedded)');
    // No panel shows an embedded core's terminals: the agent is not told the developer watches them.
    expect(client.getInstructions()).toMatch(/^ptydeck gives you real terminals, run by this MCP server itself \(ptydeck mcp --embedded\): no panel shows them/);
    expect(client.getInstructions()).not.toContain('watch');
    expect(tools.tools.find((t) => t.name === 'terminal_create')?.description).not.toContain('panel');
    await client.close();
    expect(existsSync(join(dir, 'server.json'))).toBe(false);
  });

  it("started for a chat, never runs an embedded core: the chat's shells would land where nobody sees them", () => {
    const result = run(['mcp'], { PTYDECK_STATE_DIR: stateDir(), PTYDECK_CHAT_BINDING: 'a-binding' });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('PTYDECK_CHAT_BINDING is set, but the ptydeck it belongs to is not running');
  });

  it('exits 0 on stdin EOF', async () => {
    const { child, out } = rawMcp(stateDir());
    await firstLine(child, out);
    child.stdin!.end();
    expect(await exitOf(child)).toBe(0);
  });

  it('exits 143 on SIGTERM and writes nothing but protocol frames to stdout', async () => {
    const { child, out } = rawMcp(stateDir());
    await firstLine(child, out);
    child.kill('SIGTERM');
    expect(await exitOf(child)).toBe(143);
    for (const line of out.text.split('\n').filter(Boolean)) expect(JSON.parse(line).jsonrpc).toBe('2.0');
  });
});

/** `ptydeck mcp` spoken to line by line, as an agent would: every stdout line is kept, parsed or not. */
function lineMcp(dir: string, args: string[]) {
  const child = spawn(process.execPath, [bin, 'mcp', ...args], {
    env: envOf(dir),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(child);
  const lines: string[] = [];
  let partial = '';
  let stderr = '';
  let wake: (() => void) | undefined;
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdout!.on('data', (d: Buffer) => {
    const parts = (partial + d.toString()).split('\n');
    partial = parts.pop()!;
    lines.push(...parts);
    wake?.();
  });
  let read = 0;
  return {
    child,
    lines,
    stderr: () => stderr,
    send: (line: string) => child.stdin!.write(`${line}\n`),
    /** The next stdout line, parsed. */
    async next(): Promise<any> {
      while (read >= lines.length) {
        if (child.exitCode !== null) throw new Error(`ptydeck mcp exited ${child.exitCode}: ${stderr}`);
        await new Promise<void>((resolve) => {
          wake = resolve;
          child.once('exit', () => resolve());
        });
      }
      return JSON.parse(lines[read++]!);
    },
  };
}

describe('ptydeck mcp JSON-RPC errors', () => {
  let server: LocalServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it.each([
    ['embedded, with --embedded', ['--embedded'], false],
    ['bridged to a host it started, when none runs', [], false],
    ['bridged to a running ptydeck', [], true],
  ])('%s: a bad line gets its JSON-RPC error on stdout and the next line still works', async (_name, args, bridged) => {
    const dir = stateDir();
    if (bridged) server = await startLocalServer({ stateDir: dir, appDir: '/nonexistent' });
    const mcp = lineMcp(dir, args);
    mcp.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'lines', version: '1' } } }));
    expect((await mcp.next()).result.serverInfo.name).toBe('ptydeck');
    expect(mcp.stderr()).toContain(args.length > 0 ? 'running an embedded core' : 'connected to the running ptydeck');
    if (!bridged && args.length === 0) expect(mcp.stderr()).toContain('no ptydeck host was running; started one');
    mcp.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));

    mcp.send('this is not json');
    expect(await mcp.next()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringMatching(/^Parse error/) } });
    mcp.send('{"foo":1}');
    expect(await mcp.next()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/^Invalid Request/) } });
    mcp.send('[]');
    expect((await mcp.next()).error.code).toBe(-32600);
    mcp.send('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{}}');
    expect(await mcp.next()).toEqual({ jsonrpc: '2.0', id: 2, error: { code: -32602, message: expect.stringMatching(/params\.name/) } });
    mcp.send('{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"garbage"}}');
    expect(await mcp.next()).toMatchObject({ id: 3, error: { code: -32602, message: expect.stringMatching(/cursor/) } });
    // A notification is never answered, even a bad one: the next frame out answers the request after it.
    mcp.send('{"jsonrpc":"2.0","method":"notifications/frobnicate"}');
    mcp.send('{"jsonrpc":"2.0","method":"tools/call","params":{}}');
    mcp.send('{"jsonrpc":"2.0","id":4,"method":"tools/frobnicate"}');
    expect(await mcp.next()).toMatchObject({ id: 4, error: { code: -32601 } });
    mcp.send('{"jsonrpc":"2.0","id":5,"method":"tools/list"}');
    const listed = await mcp.next();
    expect(listed.id).toBe(5);
    expect(listed.result.tools.map((t: { name: string }) => t.name)).toContain('terminal_run');

    mcp.child.stdin!.end();
    expect(await exitOf(mcp.child)).toBe(0);
    // stdout held protocol frames only, and nothing beyond the answers above.
    const frames = mcp.lines.filter(Boolean).map((line) => JSON.parse(line));
    expect(frames.map((f) => f.id)).toEqual([1, null, null, null, 2, 3, 4, 5]);
    for (const frame of frames) expect(frame.jsonrpc).toBe('2.0');
  });
});

describe('ptydeck url', () => {
  it('prints a fresh one-time panel link from the running ptydeck, or exits 1 when none runs', async () => {
    const dir = stateDir();
    const missing = run(['url'], { PTYDECK_STATE_DIR: dir });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('no running ptydeck found');

    const server = await startLocalServer({ stateDir: dir, appDir: '/nonexistent' });
    try {
      const result = spawn(process.execPath, [bin, 'url'], { env: envOf(dir) });
      let out = '';
      result.stdout.on('data', (d: Buffer) => (out += d.toString()));
      expect(await exitOf(result)).toBe(0);
      const link = new URL(out.trim());
      expect(link.origin).toBe(server.url);
      const exchange = await exchangeTicket(link.href);
      expect(exchange.status).toBe(200);
      expect(JSON.parse(exchange.body)).toEqual({ token: server.panelToken });
      expect((await exchangeTicket(link.href)).status).toBe(403);
    } finally {
      await server.close();
    }
  });
});

describe('a state directory other users can write', () => {
  it('is refused by every command, with the path and the fix, before anything runs', () => {
    const dir = stateDir();
    // A record planted by another user, pointing at their server.
    writeDiscovery({ url: 'http://127.0.0.1:9', token: 'planted', pid: process.pid, instance: 'planted' }, dir);
    chmodSync(dir, 0o777);
    for (const args of [['serve', '--port', '0'], ['host'], [], ['mcp'], ['url'], ['stop']]) {
      const result = spawnSync(process.execPath, [bin, ...args], {
        encoding: 'utf8',
        env: envOf(dir),
        input: '', // mcp would otherwise wait on stdin
        timeout: 20_000,
      });
      expect(result.status, `${args.join(' ')}: ${result.stderr}`).toBe(1);
      expect(result.stderr).toContain(`${dir} is writable by other users (mode 0777)`);
      expect(result.stderr).toContain(`chmod 700 ${dir}`);
      expect(result.stdout).toBe('');
    }
    // Nothing replaced the planted record: serve stopped before writing its own.
    expect(JSON.parse(readFileSync(join(dir, 'server.json'), 'utf8')).token).toBe('planted');
  });
});
