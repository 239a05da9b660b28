import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import WebSocket from 'ws';
import type { AgentInfo } from '@ptydeck/contract';
import { createPtyService } from '../pty/pty-service.js';
import type { PtyService } from '../pty/types.js';
import { startTestHttpServer, type TestHttpServer } from '../testing/http-core.js';
import { openSocket } from '../testing/http.js';
import { fileTempDir } from '../testing/isolated-env.js';

/**
 * Agents coming and going reach a panel as changes. Each one used to re-send
 * the whole list to every panel: 2000 agents made 958 messages and 492 MiB
 * before the panel's socket was closed for its backlog.
 *
 * The agents are registered on the real registry of a real server, which is
 * what the MCP endpoint does on each initialize and disconnect
 * (local-server.test.ts runs that path with the SDK client); 2000 real MCP
 * clients would measure the machine, not the panel's traffic.
 */

const AGENTS = 2000;
/** Per change: one agent's JSON (about 130 bytes here) and the envelope, with room. */
const BYTES_PER_CHANGE = 300;

let dir: string;
let service: PtyService;
let core: TestHttpServer;

beforeAll(async () => {
  dir = fileTempDir('ptydeck-agents-');
  service = createPtyService({ env: { ...process.env, HOME: dir } });
  core = await startTestHttpServer({ service, writeDiscovery: false, appDir: '/nonexistent' });
});

afterAll(async () => {
  await core.close();
  await service.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const agentInfo = (i: number): AgentInfo => ({
  id: `agent-${crypto.randomUUID()}-${i}`,
  name: `load-agent-${i}`,
  version: '1.0.0',
  transport: 'http',
  connectedAt: Date.now(),
});

/**
 * A panel that counts the bytes of every control message after its snapshot
 * and keeps the agent list those messages describe.
 */
async function countingPanel() {
  const opened = await openSocket(core.port, { headers: { Origin: core.url }, protocols: [`ptydeck.token.${core.panelToken}`] });
  if (!('ws' in opened)) throw new Error(`panel refused: ${opened.refused}`);
  onTestFinished(() => opened.ws.terminate());
  const snapshot = await opened.messages.json((m) => m.type === 'snapshot');
  const state = {
    snapshotAgents: (snapshot.agents as AgentInfo[]).length,
    agents: new Map((snapshot.agents as AgentInfo[]).map((a) => [a.id, a])),
    bytes: 0,
    messages: 0,
    closed: false,
  };
  const waiters = new Set<() => void>();
  const wake = () => {
    for (const w of waiters) w();
  };
  opened.ws.on('message', (data, binary) => {
    if (binary) return;
    const text = data.toString();
    const message = JSON.parse(text);
    // Only the agents' changes are counted: a panel also hears of other things (what sessions left running).
    if (message.type !== 'agent.added' && message.type !== 'agent.removed') return;
    state.bytes += Buffer.byteLength(text);
    state.messages += 1;
    if (message.type === 'agent.added') state.agents.set(message.agent.id, message.agent);
    if (message.type === 'agent.removed') state.agents.delete(message.id);
    wake();
  });
  opened.ws.on('close', () => {
    state.closed = true;
    wake();
  });
  /** Resolves once `done` holds, the socket closed, or the bytes passed `limit`; rejects after `ms`. */
  const until = (done: () => boolean, limit: number, ms: number) =>
    new Promise<void>((resolve, reject) => {
      const check = () => {
        if (done() || state.closed || state.bytes > limit) {
          waiters.delete(check);
          clearTimeout(timer);
          resolve();
        }
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no end within ${ms} ms: ${state.messages} messages, ${state.bytes} bytes`));
      }, ms);
      waiters.add(check);
      check();
    });
  return { ws: opened.ws, state, until };
}

describe('agent changes to the panel', () => {
  it(`${AGENTS} agents connecting and disconnecting cost a panel O(changes) bytes, not O(n²)`, async () => {
    const early = await countingPanel();
    expect(early.state.snapshotAgents).toBe(0);

    const agents = Array.from({ length: AGENTS }, (_, i) => agentInfo(i));
    for (const agent of agents) core.agents.add(agent);
    const limit = 2 * AGENTS * BYTES_PER_CHANGE;
    await early.until(() => early.state.agents.size === AGENTS, limit, 20_000);
    expect(early.state.closed).toBe(false);
    expect(early.state.messages).toBe(AGENTS);
    expect(early.state.bytes).toBeLessThan(AGENTS * BYTES_PER_CHANGE);

    // A panel that arrives now gets the whole list once, in its snapshot.
    const late = await countingPanel();
    expect(late.state.snapshotAgents).toBe(AGENTS);

    for (const agent of agents) core.agents.remove(agent.id);
    await early.until(() => early.state.agents.size === 0 && early.state.messages === 2 * AGENTS, limit, 20_000);
    await late.until(() => late.state.agents.size === 0, limit, 20_000);

    expect(early.state.closed).toBe(false);
    expect(early.state.messages).toBe(2 * AGENTS);
    expect(early.state.bytes).toBeLessThan(limit);
    expect(late.state.messages).toBe(AGENTS);
    expect(late.state.bytes).toBeLessThan(AGENTS * BYTES_PER_CHANGE);
    expect(early.ws.readyState).toBe(WebSocket.OPEN);
  });
});
