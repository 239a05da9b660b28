import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { recordFigure } from '../testing/figures.js';
import { fileTempDir, isolatedHome } from '../testing/isolated-env.js';
import { until } from '../testing/poll-until.js';
import { survivorsOf } from '../testing/process-table.js';
import { processesOf, reap } from '../testing/host-sandbox.js';
import { freeLoopbackPort } from '../common/free-port.js';

/**
 * The `ptydeck serve` process under faults: killed with SIGKILL and started
 * again, where the stale discovery file is detected and replaced and agents
 * holding the old session get a clear "ptydeck restarted; this session is
 * gone" instead of a hang; and stopped with SIGTERM, where no child of any
 * session survives and the discovery file is gone. The token never shows up
 * in what the CLI prints or in any process's argv.
 */
const packageRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = join(packageRoot, 'bin', 'ptydeck.js');
const repoRoot = resolve(packageRoot, '..', '..');

const children: ChildProcess[] = [];
const stateDir = fileTempDir('ptydeck-restart-');
const home = isolatedHome();
const env: Record<string, string> = {
  ...Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined)),
  PTYDECK_STATE_DIR: stateDir,
  HOME: home,
  NO_COLOR: '1',
};
delete env.FORCE_COLOR;

beforeAll(() => {
  // The launcher runs the built CLI.
  const build = spawnSync(process.execPath, [join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', 'packages/core'], { cwd: repoRoot, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`build failed:\n${build.stdout}${build.stderr}`);
}, 120_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  // Whatever a bridge may have started in this state directory goes too.
  reap({ stateDir, home, env });
  await until(() => processesOf(stateDir).length === 0, `no process of ${stateDir} is left`);
});

interface Serve {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `ptydeck serve` and resolves once it printed its panel link. */
async function serve(port: number): Promise<Serve> {
  const child = spawn(process.execPath, [bin, 'serve', '--port', String(port)], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (/Open the panel[^:]*: \S+\n/.test(out)) resolve();
    });
    void exited.then(({ code }) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
  return { child, out: () => out, err: () => err, exited };
}

function discovery(): { url: string; token: string; pid: number; instance: string } {
  return JSON.parse(readFileSync(join(stateDir, 'server.json'), 'utf8'));
}

function argvOf(pid: number): string {
  return readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').join(' ');
}

/** An agent on stdio through `ptydeck mcp`, the way Claude Code or Codex start it. */
/** Unsandboxed (--sandbox off): these tests follow the sessions' processes by the pids the tool reports, which a sandbox gives as seen inside it. */
async function stdioAgent(name: string) {
  const transport = new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp', '--sandbox', 'off'], env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name, version: '1' });
  await client.connect(transport);
  return { client, transport, stderr: () => stderr };
}

async function httpAgent(name: string, record = discovery(), headers: Record<string, string> = {}) {
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', record.url), { requestInit: { headers: { Authorization: `Bearer ${record.token}`, ...headers } } });
  const client = new Client({ name, version: '1' });
  await client.connect(transport);
  return { client, transport };
}

async function create(client: Client, args: Record<string, unknown>): Promise<{ id: string; pid: number }> {
  const made = await client.callTool({ name: 'terminal_create', arguments: args });
  expect(made.isError, JSON.stringify(made.content)).toBeFalsy();
  return made.structuredContent as { id: string; pid: number };
}

/** The error an agent's next call gets, as text, or a failure if the call succeeds. */
async function nextCallError(client: Client): Promise<string> {
  try {
    const result = await client.callTool({ name: 'terminal_list', arguments: {} }, undefined, { timeout: 20_000 });
    if (result.isError) return JSON.stringify(result.content);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the call succeeded on a session that should be gone');
}

describe('ptydeck serve under faults', () => {
  it('killed with SIGKILL and restarted: the stale discovery file is replaced, agents get "this session is gone", a bridged one then joins the new server, and shells did not outlive it', async () => {
    const port = await freeLoopbackPort();
    const first = await serve(port);
    const before = discovery();
    expect(before.pid).toBe(first.child.pid);

    // The token stays out of what the CLI prints and out of every argv.
    expect(first.out() + first.err()).not.toContain(before.token);
    expect(argvOf(first.child.pid!)).not.toContain(before.token);

    const bridged = await stdioAgent('bridged-agent');
    expect(bridged.stderr()).toContain('connected to the running ptydeck');
    const direct = await httpAgent('http-agent', before, { 'x-ptydeck-sandbox': 'off' });
    const shell = await create(bridged.client, {});
    const sleeper = await create(direct.client, { command: 'sleep', args: ['1000'] });
    expect(argvOf(bridged.transport.pid!)).not.toContain(before.token);
    expect(argvOf(shell.pid)).not.toContain(before.token);

    first.child.kill('SIGKILL');
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    // The kernel hangs up the terminals of a killed server: its shells do not linger.
    await until(() => survivorsOf([shell.pid, sleeper.pid]).length === 0, 'the killed server\'s sessions are gone');
    expect(existsSync(join(stateDir, 'server.json')), 'a SIGKILLed server cannot remove its discovery file').toBe(true);

    // While ptydeck is down, an agent's call ends with an error, not a hang.
    const whileDown = await nextCallError(bridged.client);
    expect(whileDown).toMatch(/this session is gone/);

    const second = await serve(port);
    await until(() => second.err().includes('replaced a stale'), 'serve reports the stale discovery file');
    expect(second.err()).toContain(`replaced a stale ${join(stateDir, 'server.json')} (pid ${before.pid} is gone)`);
    const after = discovery();
    expect(after).toMatchObject({ pid: second.child.pid, url: before.url });
    expect(after.instance).not.toBe(before.instance);
    expect(after.token).not.toBe(before.token);

    // Agents that held a session with the old server: a clear message, on the same address.
    const directError = await nextCallError(direct.client);
    expect(directError).toMatch(/ptydeck restarted/);
    expect(directError).toMatch(/this session is gone/);
    // The bridge told its agent at once and, called again, joins the new server with a new MCP session.
    const rejoined = await bridged.client.callTool({ name: 'terminal_list', arguments: {} });
    expect(rejoined.isError, JSON.stringify(rejoined.content)).toBeFalsy();
    expect(bridged.stderr()).toContain(`joined the ptydeck host at ${after.url} (pid ${after.pid}) with a new session`);
    // Nor does the bridge's log, after all those failures.
    expect(bridged.stderr()).not.toContain(before.token);
    expect(bridged.stderr()).not.toContain(after.token);
    await bridged.client.close();
    await direct.client.close();

    // A new agent joins the new server.
    const fresh = await stdioAgent('fresh-agent');
    const listed = await fresh.client.callTool({ name: 'terminal_list', arguments: {} });
    expect(listed.isError, JSON.stringify(listed.content)).toBeFalsy();
    await fresh.client.close();

    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(143);
    expect(existsSync(join(stateDir, 'server.json'))).toBe(false);
    recordFigure('faultServerSigkillRestart', 1, { directError, whileDown });
  });

  it('SIGTERM ends every session, including a child ignoring SIGHUP and SIGTERM and a job in its own group, and removes the discovery file', async () => {
    const running = await serve(0);
    const record = discovery();
    // Unsandboxed, so that `$!` below is a pid of this machine's namespace, not of a sandbox's.
    const agent = await httpAgent('sigterm-agent', record, { 'x-ptydeck-sandbox': 'off' });
    const shell = await create(agent.client, {});
    // And one in the default sandbox, with a job of its own: bubblewrap and all it holds end too.
    const sandboxed = await httpAgent('sandboxed-agent', record);
    const fenced = await create(sandboxed.client, {});
    await sandboxed.client.callTool({ name: 'terminal_run', arguments: { id: fenced.id, command: 'sleep 1000 &' } });
    // The tool gives a sandboxed shell's pid as seen inside it; `ptydeck ls` gives this machine's (bubblewrap's).
    const listed = JSON.parse(spawnSync(process.execPath, [bin, 'ls', '--json'], { env, encoding: 'utf8' }).stdout) as Array<{ id: string; pid: number }>;
    const fencedHostPid = listed.find((session) => session.id === fenced.id)!.pid;
    const pids = [
      shell.pid,
      fencedHostPid,
      (await create(agent.client, { command: 'sh', args: ['-c', "trap '' HUP TERM; sleep 1000 & wait; sleep 1000"] })).pid,
      (await create(agent.client, { command: 'sleep', args: ['1000'] })).pid,
    ];
    // A background job started at the shell's prompt gets its own process group.
    const ran = await agent.client.callTool({ name: 'terminal_run', arguments: { id: shell.id, command: 'sleep 1000 & echo job=$!' } });
    const job = Number(/job=(\d+)/.exec(JSON.stringify(ran.structuredContent))?.[1]);
    expect(job, JSON.stringify(ran.content)).toBeGreaterThan(0);
    expect(survivorsOf([shell.pid]).map((p) => p.pid)).toContain(job);
    // bash, the job, sh and its sleep, the lone sleep; bwrap, its bash and its job.
    await until(() => survivorsOf(pids).length >= 8, 'every session and child is running');
    const sessionsBefore = survivorsOf(pids).length;

    running.child.kill('SIGTERM');
    expect((await running.exited).code).toBe(143);
    const left = survivorsOf([...pids, job]);
    expect(left, 'processes of any session alive after SIGTERM').toEqual([]);
    expect(existsSync(join(stateDir, 'server.json'))).toBe(false);
    expect(running.out() + running.err()).not.toContain(record.token);
    recordFigure('sigtermLeftBehind', left.length, { processesBefore: sessionsBefore });
  });
});
