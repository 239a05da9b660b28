import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createPtyService } from '../pty/pty-service.js';
import type { PtyService } from '../pty/types.js';
import { startLocalServer, type LocalServer } from '../host/local-server.js';
import { exchangeTicket, openSocket } from '../testing/http.js';
import { fileTempDir, isolatedHome } from '../testing/isolated-env.js';

/**
 * Issue 10: a script an agent runs through terminal_run, in its own shell as the
 * developer's user, reads everything it can and tries every way to the panel
 * scope. Real server, real bash, the official MCP SDK client, the real CLI.
 */

const here = dirname(fileURLToPath(import.meta.url));
const packageRoot = resolve(here, '..', '..');
const bin = join(packageRoot, 'bin', 'ptydeck.js');
const script = join(here, '..', 'testing', 'hostile-shell-script.mjs');
const requireHere = createRequire(import.meta.url);
/** Variables that would place this test runner itself inside a ptydeck session (when run from a ptydeck tab). */
const outsideEnv = Object.fromEntries(
  Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[0] !== 'PTYDECK_SESSION_ID'),
);

let stateDir: string;
let service: PtyService;
let server: LocalServer;
const agents: Client[] = [];

async function connectAgent(name: string): Promise<Client> {
  const client = new Client({ name, version: '1' });
  const record = JSON.parse(readFileSync(join(stateDir, 'server.json'), 'utf8')) as { url: string; token: string };
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', record.url), { requestInit: { headers: { Authorization: `Bearer ${record.token}` } } }));
  agents.push(client);
  return client;
}

beforeAll(async () => {
  stateDir = fileTempDir('ptydeck-hostile-shell-');
  // Sessions inherit the developer's environment, state dir included, as they would from `ptydeck serve`.
  service = createPtyService({ env: { ...outsideEnv, HOME: isolatedHome(), PTYDECK_STATE_DIR: stateDir }, killGraceMs: 500 });
  // Unsandboxed agents' shells (sandbox: false): the fences at ptydeck's API must hold on their own,
  // where bubblewrap is missing or the developer turned the sandbox off (sandboxed-shells.test.ts has the rest).
  server = await startLocalServer({ service, stateDir, appDir: '/nonexistent', sandbox: false });
});

afterAll(async () => {
  for (const client of agents) await client.close();
  await server.close();
  await service.dispose();
});

interface HostileResult {
  read: { serverJson: { token: string; url: string }; sessionId: string };
  ancestors: number[];
  candidates: string[];
  panel: Array<{ token: string; opened: boolean; status?: number; sessions?: string[] }>;
  ticket: Array<{ token?: string; status: number; body: string }>;
  claims: Array<{ path: string; claim: string; status: number; body: string }>;
  url: Array<{ name: string; status: number | null; stdout: string; stderr: string }>;
  mcp: { listed: { terminals: Array<{ id: string }> }; reads: Array<{ id: string; read: { isError: boolean }; send: { isError: boolean } }> };
}

describe('a hostile script in an agent shell', () => {
  it('reads server.json, its environment and its ancestors, and still reaches neither the developer nor another agent, nor a panel link', async () => {
    // The developer's own tab, and another agent's session with output of its own.
    const developer = service.create({ source: 'user', command: 'bash', args: ['--norc', '--noprofile'] });
    const other = await connectAgent('other-agent');
    const otherRun = await other.callTool({ name: 'terminal_run', arguments: { command: 'echo other-agent-$((6*7))-private' } });
    expect(otherRun.isError, JSON.stringify(otherRun.content)).toBeFalsy();
    const otherId = (otherRun.structuredContent as { id: string }).id;

    const hostile = await connectAgent('hostile-agent');
    const resultFile = join(fileTempDir('ptydeck-hostile-result-'), 'result.json');
    const argv = [
      resultFile,
      requireHere.resolve('ws'),
      requireHere.resolve('@modelcontextprotocol/sdk/client/index.js'),
      requireHere.resolve('@modelcontextprotocol/sdk/client/streamableHttp.js'),
      bin,
      developer.id,
      otherId,
    ];
    const run = await hostile.callTool({
      name: 'terminal_run',
      arguments: { command: [process.execPath, script, ...argv].map((a) => `'${a}'`).join(' '), timeout_ms: 120_000 },
    });
    expect(run.isError, JSON.stringify(run.content)).toBeFalsy();
    expect(run.structuredContent, JSON.stringify(run.structuredContent)).toMatchObject({ outcome: 'completed', exit_code: 0 });
    const result = JSON.parse(readFileSync(resultFile, 'utf8')) as HostileResult;

    // It read everything it could: the agent token on disk, its session id, the server's /proc entries.
    expect(result.read.serverJson.token).toBe(server.agentToken);
    expect(result.candidates).toContain(server.agentToken);
    expect(result.read.sessionId).toBeTruthy();
    expect(result.ancestors).toContain(process.pid);
    // Nothing readable held the panel token.
    expect(result.candidates).not.toContain(server.panelToken);

    // No secret it found opens the panel: not the agent token, not anything else.
    expect(result.panel.length).toBe(result.candidates.length);
    for (const attempt of result.panel) expect(attempt, `panel with ${attempt.token}`).toMatchObject({ opened: false, status: 401 });
    // /ticket gives it no link, with or without a bearer, and says why.
    expect(result.ticket.length).toBe(result.candidates.length + 1);
    for (const attempt of result.ticket) {
      expect(attempt.status, `ticket with ${attempt.token}`).toBe(403);
      expect(attempt.body).not.toContain('#ticket=');
      expect(attempt.body).toContain('ptydeck session');
    }
    // Naming another process as the sender gets it nothing: not the host's (which holds the other end), not the
    // developer's processes above the host, not init, not a malformed or doubled claim; its own is judged as inside.
    expect(result.claims.map((c) => c.claim)).toEqual(expect.arrayContaining([String(process.pid), String(process.ppid), '1', 'not-a-pid']));
    for (const attempt of result.claims) {
      expect(attempt.status, `${attempt.path} claiming ${attempt.claim}: ${attempt.body}`).toBe(403);
      expect(attempt.body).not.toContain('#ticket=');
      expect(attempt.body).not.toContain('"snapshot"');
    }
    for (const attempt of result.claims.filter((c) => Number(c.claim) === process.pid || Number(c.claim) === process.ppid)) {
      expect(attempt.body, `${attempt.path} claiming ${attempt.claim}`).toContain('does not hold the connection');
    }
    // The panel socket opened by pid, as `ptydeck attach` opens it, was tried with every claim and its own pid: none opened.
    const byPid = result.claims.filter((c) => c.path === '/panel');
    expect(byPid.length).toBe(result.claims.filter((c) => c.path === '/ticket').length + 1);
    expect(byPid.map((c) => c.status)).not.toContain(101);
    // Its own pid holds the connection, and is judged inside its session.
    expect(byPid.at(-1)!.body).toMatch(/^refused: .*ptydeck session/);
    // Nor does `ptydeck url`, however it is started (short of leaving the process tree: see the README), nor `ptydeck attach`.
    expect(result.url.map((u) => u.name)).toEqual(['plain', 'scrubbed environment', 'setsid and scrubbed environment', 'attach, scrubbed environment']);
    for (const attempt of result.url) {
      expect(attempt.status, `${attempt.name}: ${attempt.stderr}`).toBe(1);
      expect(attempt.stdout, attempt.name).toBe('');
      expect(attempt.stderr, attempt.name).toContain('refused');
    }
    // Its agent token reaches its own scope only: no foreign session listed, read or typed into.
    const listed = result.mcp.listed.terminals.map((t) => t.id);
    expect(listed).not.toContain(developer.id);
    expect(listed).not.toContain(otherId);
    expect(result.mcp.reads.map((r) => r.id)).toEqual([developer.id, otherId]);
    for (const attempt of result.mcp.reads) expect(attempt, attempt.id).toMatchObject({ read: { isError: true }, send: { isError: true } });
    expect(JSON.stringify(result)).not.toContain('other-agent-42-private');

    // And the developer's tab and the other agent's shell never saw its input.
    const text = (id: string) => Buffer.from(service.read(id).data).toString('utf8');
    expect(text(developer.id)).not.toContain('HOSTILE');
    expect(text(otherId)).not.toContain('HOSTILE');
  }, 180_000);

  it('hands its connection to a process that left the session and names that one: refused while the shell still holds it', async () => {
    const agent = await connectAgent('forking-agent');
    const dir = fileTempDir('ptydeck-hostile-fork-');
    const run = await agent.callTool({
      name: 'terminal_run',
      arguments: { command: `bash '${join(here, '..', 'testing', 'forked-holder-script.sh')}' ${server.port} '${dir}'`, timeout_ms: 60_000 },
    });
    expect(run.structuredContent, JSON.stringify(run.content)).toMatchObject({ outcome: 'completed', exit_code: 0 });
    const output = (run.structuredContent as { output: string }).output;
    // The escaped process holds the socket and is outside every session, but the agent's shell holds it too, and reads the answer.
    expect(output).toMatch(/^ticket: HTTP\/1\.1 403 .*inside a ptydeck session, holds the connection too/m);
    expect(output).not.toContain('#ticket=');
    expect(output).toMatch(/^panel: HTTP\/1\.1 403/m);
    // The control: the same escape, asking on its own connection, passes (docs/security.md: what does not hold).
    expect(output).toMatch(/^alone: HTTP\/1\.1 200/m);
  }, 90_000);

  it('while `ptydeck url` from a process outside every session gets a link that opens the panel', async () => {
    const child = spawn(process.execPath, [bin, 'url'], { env: { ...outsideEnv, PTYDECK_STATE_DIR: stateDir } });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((done) => child.once('exit', done));
    expect(code, err).toBe(0);
    const exchanged = await exchangeTicket(out.trim());
    expect(exchanged.status).toBe(200);
    const { token } = JSON.parse(exchanged.body) as { token: string };
    expect(token).toBe(server.panelToken);
    const panel = await openSocket(server.port, { headers: { Origin: server.url }, protocols: ['ptydeck.v1', `ptydeck.token.${token}`] });
    if (!('ws' in panel)) throw new Error(`panel refused ${panel.refused}`);
    try {
      const snapshot = await panel.messages.json((m) => m.type === 'snapshot');
      // The panel scope sees every session, the developer's and every agent's.
      expect(snapshot.sessions.length).toBe(service.list().length);
    } finally {
      panel.ws.close();
    }
  }, 60_000);
});
