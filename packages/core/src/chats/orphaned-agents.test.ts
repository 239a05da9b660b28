import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPtyService } from '../pty/pty-service.js';
import { buildCore, isAlive } from '../testing/host-sandbox.js';
import { fileTempDir, isolatedEnv } from '../testing/isolated-env.js';
import { until } from '../testing/poll-until.js';
import { ChatHost } from './chat-host.js';
import { CHAT_HOST_ENV, chatHostMark, orphanedChatProcesses } from './orphaned-agents.js';
import { CHAT_ID_ENV, HOST_ID_ENV } from '../common/env-names.js';
import { startLocalServer } from '../host/local-server.js';
import { hostIdOf } from '../pty/session-labels.js';
import { openSocket } from '../testing/http.js';
import { procPids, readOptional, readStat, startedAtMs } from '../proc/proc-fs.js';
import { snapshotSessions } from '../pty/session-processes.js';

// What a search reads (proc-fs's reads and listings of /proc, counted as they pass).
vi.mock('../proc/proc-fs.js', async (actual) => {
  const real = await actual<typeof import('../proc/proc-fs.js')>();
  return { ...real, readOptional: vi.fn(real.readOptional), procPids: vi.fn(real.procPids) };
});

const DEMO_AGENT = fileURLToPath(new URL('../testing/demo-agent.mjs', import.meta.url));
const HOST_PROCESS = fileURLToPath(new URL('../testing/chat-host-process.mjs', import.meta.url));
const linux = process.platform === 'linux';

let dir: string;
const children: ChildProcess[] = [];
/** Chat ids whose processes a failed test could leave behind. */
const chatIds: string[] = [];

beforeAll(() => {
  buildCore();
  dir = fileTempDir('ptydeck-orphaned-agents-');
}, 120_000);
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const pid of chatIds.splice(0).flatMap((id) => carrying(CHAT_ID_ENV, id))) process.kill(pid, 'SIGKILL');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Live processes whose environment carries `name=value`. */
function carrying(name: string, value: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || !isAlive(Number(entry))) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0').includes(`${name}=${value}`)) found.push(Number(entry));
    } catch {
      // gone, or not ours
    }
  }
  return found;
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1').replaceAll('\0', ' ').trim();
  } catch {
    return '';
  }
}

/** A pid that named a process which has exited, as a dead host's mark. */
async function deadMark(): Promise<string> {
  const child = spawn(process.execPath, ['-e', '']);
  await once(child, 'exit');
  return `${child.pid}:1`;
}

describe.runIf(linux)('chat agents and their host', () => {
  // Issue 31 item 10: a chat's agent, and what it started, outlived a SIGKILLed host, owned by no host.
  it('a SIGKILLed host takes its chat agent with it, and the next host ends what the agent started', async () => {
    const configDir = join(dir, 'config');
    const cwd = join(dir, 'work');
    mkdirSync(configDir);
    mkdirSync(cwd);
    writeFileSync(join(configDir, 'agents.json'), JSON.stringify({ agents: [{ name: 'demo', command: process.execPath, args: [DEMO_AGENT] }] }));
    const env = isolatedEnv();
    const hostId = 'orphaned-agents-test';
    const host = spawn(process.execPath, [HOST_PROCESS, configDir, cwd, 'own sleep 777', hostId], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(host);
    const [line] = (await once(host.stdout!, 'data')) as [Buffer];
    const { chatId } = JSON.parse(line.toString('utf8')) as { chatId: string };
    chatIds.push(chatId);
    const chats = () => carrying(CHAT_ID_ENV, chatId);
    const sleeper = () => chats().find((pid) => commandOf(pid) === 'sleep 777');
    await until(() => sleeper() !== undefined, 'the agent has started sleep 777');
    const agent = chats().find((pid) => commandOf(pid).includes('demo-agent.mjs'))!;
    expect(agent).toBeGreaterThan(0);
    expect(sleeper()).toBeGreaterThan(0);

    host.kill('SIGKILL');
    await once(host, 'exit');
    // The parent-death signal: the agent goes with its host.
    await until(() => !isAlive(agent), `the agent ${agent} died with its host`);
    // What it started has no host now, and the next one of the same host id ends it.
    const next = new ChatHost({ service: createPtyService({ env, hostId }), configDir, killGraceMs: 1000 });
    try {
      await until(() => chats().length === 0, `nothing of chat ${chatId} is left (${chats().map(commandOf).join(', ')})`);
    } finally {
      await next.dispose();
    }
  }, 60_000);

  it('counts as orphaned only what carries a chat id, this host id and the mark of a host that no longer runs, and no session id', async () => {
    const dead = await deadMark();
    const hostId = 'orphans-of-this-host';
    const start = (extra: Record<string, string>) => {
      const child = spawn('sleep', ['600'], { env: { ...process.env, [CHAT_ID_ENV]: 'chat-test', [HOST_ID_ENV]: hostId, ...extra }, stdio: 'ignore' });
      children.push(child);
      return child.pid!;
    };
    const orphan = start({ [CHAT_HOST_ENV]: dead });
    const live = start({ [CHAT_HOST_ENV]: chatHostMark()! });
    const inSession = start({ [CHAT_HOST_ENV]: dead, PTYDECK_SESSION_ID: 'pty-test' });
    const unmarked = start({});
    const anotherHosts = start({ [CHAT_HOST_ENV]: dead, [HOST_ID_ENV]: 'another-state-dir' });
    await until(() => [orphan, live, inSession, unmarked, anotherHosts].every((pid) => commandOf(pid) === 'sleep 600'), 'the sleeps have started');
    const found = orphanedChatProcesses(hostId);
    expect(found.filter((proc) => proc.pid === orphan)).toEqual([expect.objectContaining({ pid: orphan, chatId: 'chat-test' })]);
    for (const pid of [live, inSession, unmarked, anotherHosts]) expect(found.map((proc) => proc.pid)).not.toContain(pid);
    // And no host ended the others.
    expect([live, inSession, unmarked].every(isAlive)).toBe(true);
  });

  // Issue 34: the process watch's orphan search read every process's environment at each search, a third of a scan's
  // main-thread turn under bench figure 5's load; an environment is now read once per program, with the scans'.
  it('finds a dead host\'s chat\'s process at every search while reading no environment of a settled program twice', async () => {
    const dead = await deadMark();
    const hostId = 'orphans-searched-twice';
    const child = spawn('sleep', ['600'], { env: { ...process.env, [CHAT_ID_ENV]: 'chat-twice', [CHAT_HOST_ENV]: dead, [HOST_ID_ENV]: hostId }, stdio: 'ignore' });
    children.push(child);
    await until(() => commandOf(child.pid!) === 'sleep 600', 'the sleep has started');
    const reads = vi.mocked(readOptional);
    const environsRead = () => new Set(reads.mock.calls.map(([path]) => /^\/proc\/(\d+)\/environ$/.exec(path)?.[1]).filter((pid) => pid !== undefined).map(Number));
    reads.mockClear();
    expect(orphanedChatProcesses(hostId).map((proc) => proc.pid)).toContain(child.pid);
    expect(environsRead().has(child.pid!)).toBe(true);
    // Programs that have run a while (not between a fork and an exec): their environment is what it was.
    const settled = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry)).map(Number).filter((pid) => {
      const stat = readStat(pid);
      return stat !== undefined && Date.now() - startedAtMs(stat) > 5_000;
    });
    expect(settled.length).toBeGreaterThan(0);
    reads.mockClear();
    expect(orphanedChatProcesses(hostId).map((proc) => proc.pid)).toContain(child.pid);
    const second = environsRead();
    expect(settled.filter((pid) => second.has(pid))).toEqual([]);
    expect(second.has(child.pid!)).toBe(false);
    // In the turn of a scan (the process watch's look), the search lists no /proc of its own: the scan's table stands.
    const service = createPtyService({ env: isolatedEnv(), hostId });
    try {
      snapshotSessions(service.labels, [], { outlived: true });
      vi.mocked(procPids).mockClear();
      expect(orphanedChatProcesses(hostId).map((proc) => proc.pid)).toContain(child.pid);
      expect(vi.mocked(procPids)).not.toHaveBeenCalled();
      // In a later turn, it does.
      await new Promise((resolve) => setImmediate(resolve));
      expect(orphanedChatProcesses(hostId).map((proc) => proc.pid)).toContain(child.pid);
      expect(vi.mocked(procPids)).toHaveBeenCalledTimes(1);
    } finally {
      await service.dispose();
    }
    // And once it is gone, it is no longer found.
    child.kill('SIGKILL');
    await once(child, 'exit');
    expect(orphanedChatProcesses(hostId).map((proc) => proc.pid)).not.toContain(child.pid);
  });

  it('lists under "Left running" what a dead host\'s chat left that the next host\'s sweep did not end, and ends only that', async () => {
    const stateDir = join(dir, 'left-running-state');
    mkdirSync(stateDir, { mode: 0o700 });
    const dead = await deadMark();
    const label = (chatId: string, hostId: string) => ({ ...isolatedEnv(), [CHAT_ID_ENV]: chatId, [CHAT_HOST_ENV]: dead, [HOST_ID_ENV]: hostId });
    chatIds.push('chat-respawns', 'chat-of-another-host');
    // A dead host's chat's process that, told to stop, starts another and exits (a supervisor): the sweep ends what it
    // found, and what it started meanwhile survives it.
    const supervisor = spawn('bash', ['-c', "trap 'sleep 901 & exit 0' TERM; sleep 900 & wait"], { env: label('chat-respawns', hostIdOf(stateDir)), stdio: 'ignore' });
    children.push(supervisor);
    // Another state directory's dead host's chat: none of this host's to end or show.
    const foreign = spawn('sleep', ['902'], { env: label('chat-of-another-host', 'another-state-dir'), stdio: 'ignore' });
    children.push(foreign);
    await until(() => carrying(CHAT_ID_ENV, 'chat-respawns').some((pid) => commandOf(pid) === 'sleep 900') && commandOf(foreign.pid!) === 'sleep 902', 'the sleeps have started');

    const server = await startLocalServer({ stateDir, configDir: join(dir, 'left-running-config'), writeDiscovery: false, appDir: '/nonexistent', sandbox: false, agentKillGraceMs: 1000, processWatch: { intervalMs: 50 } });
    try {
      await server.chats.orphansEnded;
      const survivor = () => carrying(CHAT_ID_ENV, 'chat-respawns').find((pid) => commandOf(pid) === 'sleep 901');
      await until(() => survivor() !== undefined && !isAlive(supervisor.pid!), 'the sweep ended the supervisor, which started sleep 901');
      const opened = await openSocket(server.port, { headers: { Origin: server.url }, protocols: [`ptydeck.token.${server.panelToken}`] });
      if (!('ws' in opened)) throw new Error(`refused ${opened.refused}`);
      const { ws, messages } = opened;
      try {
        const listed = await messages.json((m) => m.type === 'processes.leftovers' && m.sessions.some((session: { id: string }) => session.id === 'chat-respawns'));
        expect(listed.sessions.find((session: { id: string }) => session.id === 'chat-respawns')).toMatchObject({
          kind: 'chat',
          processes: [expect.objectContaining({ pid: survivor(), command: 'sleep 901' })],
        });
        expect(listed.sessions.some((session: { id: string }) => session.id === 'chat-of-another-host')).toBe(false);
        expect(isAlive(foreign.pid!)).toBe(true);

        // Another host's chat's process is refused under its chat's id, and a chat's id names no session.
        ws.send(JSON.stringify({ type: 'processes.end', requestId: 'foreign', id: 'chat-of-another-host', kind: 'chat', pids: [foreign.pid] }));
        expect(await messages.json((m) => m.requestId === 'foreign')).toMatchObject({ type: 'processes.ended', ended: [], refused: [foreign.pid] });
        ws.send(JSON.stringify({ type: 'processes.end', requestId: 'as-session', id: 'chat-respawns', pids: [survivor()] }));
        expect(await messages.json((m) => m.requestId === 'as-session')).toMatchObject({ type: 'error', code: 'no_such_session' });
        const pid = survivor()!;
        ws.send(JSON.stringify({ type: 'processes.end', requestId: 'end', id: 'chat-respawns', kind: 'chat', pids: [pid, process.pid] }));
        expect(await messages.json((m) => m.requestId === 'end')).toMatchObject({ ended: [{ pid, command: 'sleep 901' }], notEnded: [], refused: [process.pid] });
        await messages.json((m) => m.type === 'processes.leftovers' && !m.sessions.some((session: { id: string }) => session.id === 'chat-respawns'));
        expect(isAlive(foreign.pid!)).toBe(true);
      } finally {
        ws.close();
      }
    } finally {
      await server.close();
    }
  }, 60_000);
});
