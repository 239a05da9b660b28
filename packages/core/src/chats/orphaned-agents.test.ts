import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPtyService } from '../pty/pty-service.js';
import { buildCore, isAlive } from '../testing/host-sandbox.js';
import { isolatedEnv } from '../testing/isolated-env.js';
import { until } from '../testing/poll-until.js';
import { ChatHost } from './chat-host.js';
import { CHAT_HOST_ENV, chatHostMark, orphanedChatProcesses } from './orphaned-agents.js';
import { CHAT_ID_ENV } from '../common/env-names.js';

const DEMO_AGENT = fileURLToPath(new URL('../testing/demo-agent.mjs', import.meta.url));
const HOST_PROCESS = fileURLToPath(new URL('../testing/chat-host-process.mjs', import.meta.url));
const linux = process.platform === 'linux';

let dir: string;
const children: ChildProcess[] = [];
/** Chat ids whose processes a failed test could leave behind. */
const chatIds: string[] = [];

beforeAll(() => {
  buildCore();
  dir = mkdtempSync(join(tmpdir(), 'ptydeck-orphaned-agents-'));
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
    const host = spawn(process.execPath, [HOST_PROCESS, configDir, cwd, 'own sleep 777'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
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
    // What it started has no host now, and the next one ends it (another test's host starting meanwhile may be first).
    const next = new ChatHost({ service: createPtyService({ env }), configDir, killGraceMs: 1000 });
    try {
      await until(() => chats().length === 0, `nothing of chat ${chatId} is left (${chats().map(commandOf).join(', ')})`);
    } finally {
      await next.dispose();
    }
  }, 60_000);

  it('counts as orphaned only what carries a chat id and the mark of a host that no longer runs, and no session id', async () => {
    const dead = await deadMark();
    const start = (extra: Record<string, string>) => {
      const child = spawn('sleep', ['600'], { env: { ...process.env, [CHAT_ID_ENV]: 'chat-test', ...extra }, stdio: 'ignore' });
      children.push(child);
      return child.pid!;
    };
    const orphan = start({ [CHAT_HOST_ENV]: dead });
    const live = start({ [CHAT_HOST_ENV]: chatHostMark()! });
    const inSession = start({ [CHAT_HOST_ENV]: dead, PTYDECK_SESSION_ID: 'pty-test' });
    const unmarked = start({});
    await until(() => [orphan, live, inSession, unmarked].every((pid) => commandOf(pid) === 'sleep 600'), 'the sleeps have started');
    const found = orphanedChatProcesses().map((proc) => proc.pid);
    // A host starting in another test file meanwhile may have ended the orphan already: found, or gone.
    expect(found.includes(orphan) || !isAlive(orphan)).toBe(true);
    expect(found).not.toContain(live);
    expect(found).not.toContain(inSession);
    expect(found).not.toContain(unmarked);
    // And no host ended the others.
    expect([live, inSession, unmarked].every(isAlive)).toBe(true);
  });
});
