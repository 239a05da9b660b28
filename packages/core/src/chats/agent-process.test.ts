import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RequestPermissionRequest, SessionNotification } from '@agentclientprotocol/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPtyService } from '../pty/pty-service.js';
import { waitForExit } from '../testing/session-waits.js';
import type { PtyService } from '../pty/types.js';
import type { WriteDecision } from './acp-client.js';
import { lastWords, startAcpAgent, type AcpAgent, type StartAgentOptions } from './agent-process.js';
import { fileTempDir } from '../testing/isolated-env.js';

const FAKE_AGENT = fileURLToPath(new URL('../testing/fake-agent.mjs', import.meta.url));

let dir: string;
let env: Record<string, string | undefined>;
let service: PtyService;
const agents: AcpAgent[] = [];

beforeAll(() => {
  dir = fileTempDir('ptydeck-acp-agent-');
  const home = join(dir, 'home');
  mkdirSync(home);
  env = { ...process.env, HOME: home, HISTFILE: join(home, '.history') };
  service = createPtyService({ env, killGraceMs: 1000 });
});
afterEach(async () => {
  await Promise.all(agents.splice(0).map((agent) => agent.stop()));
});
afterAll(async () => {
  await service.dispose();
  rmSync(dir, { recursive: true, force: true });
});

type Callbacks = Pick<StartAgentOptions, 'requestPermission' | 'approveWrite'>;
const refuseAll: Callbacks = {
  requestPermission: async () => null,
  approveWrite: async () => 'reject',
};

async function start(callbacks: Partial<Callbacks> = {}): Promise<AcpAgent> {
  const agent = await startAcpAgent(
    { name: 'fake', command: process.execPath, args: [FAKE_AGENT], env: {} },
    { ...refuseAll, ...callbacks, service, cwd: dir, env },
  );
  agents.push(agent);
  return agent;
}

/** The next report the fake agent sends (its agent_message_chunk text, parsed). */
function nextReport(agent: AcpAgent): Promise<Record<string, any>> {
  return new Promise((resolve) => {
    const off = agent.onSessionUpdate((notification: SessionNotification) => {
      const { update } = notification;
      if (update.sessionUpdate !== 'agent_message_chunk' || update.content.type !== 'text') return;
      off();
      resolve(JSON.parse(update.content.text));
    });
  });
}

/** True while `pid` runs (a zombie counts as gone: it only waits to be reaped). */
function alive(pid: number): boolean {
  try {
    return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'latin1'));
  } catch {
    return false;
  }
}

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function prompt(agent: AcpAgent, request: object): Promise<Record<string, any>> {
  const report = nextReport(agent);
  expect(await agent.prompt(JSON.stringify(request))).toMatchObject({ stopReason: 'end_turn' });
  return report;
}

describe('an ACP agent process', () => {
  it('runs a terminal in the PTY service, reads and writes files after approval, and forwards permission requests', async () => {
    const file = join(dir, 'notes.txt');
    const other = join(dir, 'sub', 'other.txt');
    writeFileSync(file, 'one\ntwo\nthree\n');
    const approvals: { path: string; contentWhenAsked: string }[] = [];
    const permissions: RequestPermissionRequest[] = [];
    const created: string[] = [];
    const offCreated = service.on('pty.created', (event) => created.push(event.info.id));
    const agent = await start({
      approveWrite: async ({ path }): Promise<WriteDecision> => {
        approvals.push({ path, contentWhenAsked: readFileSync(file, 'utf8') });
        // Answer late: a write that did not wait would already be on disk.
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(readFileSync(file, 'utf8')).toBe('one\ntwo\nthree\n');
        return 'allow_for_session';
      },
      requestPermission: async (request) => {
        permissions.push(request);
        return 'allow';
      },
    });
    const seen = await prompt(agent, {
      scenario: 'run',
      file,
      writes: [
        { path: file, content: 'written' },
        { path: other, content: 'also written' },
      ],
    });
    offCreated();

    expect(seen.clientCapabilities).toMatchObject({ fs: { readTextFile: true, writeTextFile: true }, terminal: true, _meta: { terminal_output: true } });
    const info = service.get(seen.terminalId);
    expect(created).toEqual([seen.terminalId]);
    expect(info).toMatchObject({ source: 'agent', owner: agent.sessionId, ownerName: 'fake', status: 'exited', exitCode: 3 });
    expect(seen.exit).toEqual({ exitCode: 3, signal: null });
    expect(seen.output.output.trim()).toBe('hi');
    expect(seen.output).toMatchObject({ truncated: false, exitStatus: { exitCode: 3, signal: null } });
    expect(seen.afterRelease).toMatchObject({ code: -32002, message: expect.stringContaining('Terminal not found') });

    expect(seen.read).toEqual({ content: 'two' });
    // Allowed for the session: asked once, before the first write, and both writes happened.
    expect(approvals).toEqual([{ path: file, contentWhenAsked: 'one\ntwo\nthree\n' }]);
    expect(seen.writes).toEqual(['ok', 'ok']);
    expect(readFileSync(file, 'utf8')).toBe('written');
    expect(readFileSync(other, 'utf8')).toBe('also written');

    expect(permissions).toHaveLength(1);
    expect(permissions[0]).toMatchObject({ sessionId: agent.sessionId, toolCall: { title: 'rm -rf build' } });
    expect(seen.permission).toEqual({ outcome: { outcome: 'selected', optionId: 'allow' } });
  });

  it('writes nothing the developer declines, and asks again next time', async () => {
    const file = join(dir, 'keep.txt');
    writeFileSync(file, 'original');
    let asked = 0;
    const agent = await start({
      approveWrite: async () => {
        asked++;
        return 'reject';
      },
    });
    const seen = await prompt(agent, { scenario: 'run', file, writes: [{ path: file, content: 'x' }, { path: file, content: 'y' }] });
    expect(seen.writes).toEqual([
      { code: -32603, message: expect.stringContaining('the developer declined it') },
      { code: -32603, message: expect.stringContaining('the developer declined it') },
    ]);
    expect(asked).toBe(2);
    expect(readFileSync(file, 'utf8')).toBe('original');
    expect(seen.permission).toEqual({ outcome: { outcome: 'cancelled' } });
  });

  it('cancel() answers a pending permission request as cancelled and tells the prompt to close', async () => {
    let signal: AbortSignal | undefined;
    let asked!: () => void;
    const askedPromise = new Promise<void>((resolve) => (asked = resolve));
    const agent = await start({
      requestPermission: (_request, abortSignal) => {
        signal = abortSignal;
        asked();
        return new Promise(() => {});
      },
    });
    const report = nextReport(agent);
    const turn = agent.prompt(JSON.stringify({ scenario: 'ask' }));
    await askedPromise;
    await agent.cancel();
    expect(await report).toEqual({ permission: { outcome: { outcome: 'cancelled' } } });
    expect(signal?.aborted).toBe(true);
    await turn;
  });

  it('reports an agent that dies and releases its terminals', async () => {
    const agent = await start();
    const exits: unknown[] = [];
    agent.onExit((exit) => exits.push(exit));
    const report = nextReport(agent);
    const turn = agent.prompt(JSON.stringify({ scenario: 'hold' }));
    turn.catch(() => undefined);
    const { terminalId } = await report;
    expect(service.get(terminalId)).toMatchObject({ status: 'running', source: 'agent', owner: agent.sessionId });

    process.kill(agent.pid, 'SIGKILL');
    const exit = await agent.closed;
    expect(exit).toMatchObject({ exitCode: null, signal: 'SIGKILL' });
    expect(exits).toEqual([exit]);
    await waitForExit(service, terminalId);
    // Released: the id is gone from the connection, as terminal/output would tell the agent.
    expect(() => agent.client.terminals.output({ sessionId: agent.sessionId, terminalId })).toThrow(/Terminal not found/);
    await expect(turn).rejects.toThrow();
  });

  it('ends what the agent started, when it is stopped and when it dies', async () => {
    for (const end of ['stop', 'crash'] as const) {
      const pidFile = join(dir, `helper-${end}.pid`);
      // A helper that ignores SIGTERM, as a careless MCP server might.
      const agent = await startAcpAgent(
        {
          name: 'parent',
          command: 'bash',
          args: ['-c', `bash -c 'trap "" TERM; exec sleep 600' & echo $! > ${pidFile}; exec ${process.execPath} ${FAKE_AGENT}`],
          env: {},
        },
        { ...refuseAll, service, cwd: dir, env, killGraceMs: 300 },
      );
      agents.push(agent);
      const helper = Number(readFileSync(pidFile, 'utf8'));
      expect(alive(helper)).toBe(true);
      if (end === 'stop') await agent.stop();
      else {
        process.kill(agent.pid, 'SIGKILL');
        await agent.closed;
      }
      await until(() => !alive(helper));
    }
  });

  it('rejects with the reason when the agent cannot start or dies before its session exists', async () => {
    await expect(startAcpAgent({ name: 'ghost', command: join(dir, 'no-such-agent'), args: [], env: {} }, { ...refuseAll, service, cwd: dir, env })).rejects.toThrow(
      /cannot start agent 'ghost' .*ENOENT/,
    );
    await expect(
      startAcpAgent({ name: 'quitter', command: 'bash', args: ['-c', 'echo "no API key" >&2; exit 7'], env: {} }, { ...refuseAll, service, cwd: dir, env }),
    ).rejects.toThrow(/agent 'quitter' \(bash\) exited \(code 7\) during initialize: no API key/);
  });

  it("says what an agent's 'Internal error' carries in its data (Claude's adapter: why its CLI quit)", async () => {
    // Answers initialize, then fails session/new as claude-agent-acp 0.23.1 does when the Claude CLI exits, and stays alive.
    const script = [
      "const rl = require('node:readline').createInterface({ input: process.stdin });",
      "const send = (f) => process.stdout.write(JSON.stringify(f) + '\\n');",
      "rl.on('line', (line) => { const m = JSON.parse(line);",
      "  if (m.method === 'initialize') send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: 1, agentCapabilities: {}, authMethods: [] } });",
      "  else if (m.method === 'session/new') send({ jsonrpc: '2.0', id: m.id, error: { code: -32603, message: 'Internal error', data: { details: 'Query closed before response received' } } }); });",
    ].join('\n');
    await expect(startAcpAgent({ name: 'failing', command: process.execPath, args: ['-e', script], env: {} }, { ...refuseAll, service, cwd: dir, env })).rejects.toThrow(
      "agent 'failing' (" + process.execPath + ') failed session/new: Internal error (Query closed before response received)',
    );
  });
});

describe('lastWords', () => {
  it("keeps a dying agent's reason, not the stack trace after it", () => {
    const codex = readFileSync(new URL('../testing/fixtures/codex-acp-0.16.0-config-error.stderr.txt', import.meta.url), 'utf8');
    expect(lastWords(codex, 500)).toMatch(/Error: error loading config: CODEX_HOME points to "\/home\/dev\/.codex", but that path does not exist$/);
    const node = 'file:///agent.js:3\n  throw new Error("no key");\n  ^\n\nError: no key\n    at main (file:///agent.js:3:9)\n    at file:///agent.js:5:1\n\nNode.js v20.20.2\n';
    expect(lastWords(node, 500)).toMatch(/\^\n\nError: no key$/);
  });

  it('keeps plain stderr as it is, cut to its last characters, and a trace with nothing before it', () => {
    expect(lastWords('starting\nno API key\n', 10)).toBe('no API key');
    expect(lastWords('   0: main\n   1: start\n', 100)).toBe('0: main\n   1: start');
  });
});

describe("an agent's process", () => {
  it("holds no session's terminal master: it could type into the developer's shells", async () => {
    // node-pty's masters are not close-on-exec, and libuv closes nothing in a child.
    const shell = service.create({ source: 'user', command: 'cat' });
    const agent = await start();
    const { targets } = await prompt(agent, { scenario: 'descriptors' });
    expect(targets.length).toBeGreaterThan(3);
    expect(targets.filter((target: string) => target.includes('ptmx'))).toEqual([]);
    await service.remove(shell.id);
  });
});
