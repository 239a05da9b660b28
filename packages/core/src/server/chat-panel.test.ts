import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { PanelServerMessage } from '@ptydeck/contract';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type WebSocket from 'ws';
import { createPtyService } from '../pty/pty-service.js';
import { fileTempDir, isolatedEnv } from '../testing/isolated-env.js';
import type { PtyService } from '../pty/types.js';
import { CHAT_BINDING_HEADER } from '../common/bridge-header.js';
import { startLocalServer, type LocalServer } from '../host/local-server.js';
import { openSocket, type MessageQueue } from '../testing/http.js';
import { until } from '../testing/poll-until.js';
import { descendantsOf, environValue, survivorsOf } from '../testing/process-table.js';
import { readAll, waitForExit } from '../testing/session-waits.js';

const DEMO_AGENT = fileURLToPath(new URL('../testing/demo-agent.mjs', import.meta.url));
const BIN = fileURLToPath(new URL('../../bin/ptydeck.js', import.meta.url));

let dir: string;
let configDir: string;
let service: PtyService;
let server: LocalServer;

const writeAgents = (content: string) => writeFileSync(join(configDir, 'agents.json'), content);
const DEMO_CONFIG = JSON.stringify({ agents: [{ name: 'demo', command: process.execPath, args: [DEMO_AGENT] }] });

beforeAll(async () => {
  dir = fileTempDir('ptydeck-chat-panel-');
  configDir = join(dir, 'config');
  mkdirSync(configDir);
  writeAgents(DEMO_CONFIG);
  const env = isolatedEnv();
  service = createPtyService({ env, killGraceMs: 1000 });
  server = await startLocalServer({
    service,
    stateDir: join(dir, 'state'),
    appDir: '/nonexistent',
    configDir,
    launchDir: dir,
    agentEnv: env,
    agentKillGraceMs: 1000,
  });
});

afterAll(async () => {
  await server.close();
  await service.dispose();
  rmSync(dir, { recursive: true, force: true });
});

/** A panel socket whose every message is checked against the contract. */
async function panel(target: LocalServer = server): Promise<{ ws: WebSocket; messages: MessageQueue; send(message: object): void; next(predicate: (m: any) => boolean): Promise<any> }> {
  const opened = await openSocket(target.port, { headers: { Origin: target.url }, protocols: [`ptydeck.token.${target.panelToken}`] });
  if (!('ws' in opened)) throw new Error(`refused ${opened.refused}`);
  const { ws, messages } = opened;
  onTestFinished(() => ws.close());
  let from = 0;
  return {
    ws,
    messages,
    send: (message) => ws.send(JSON.stringify(message)),
    /** The next message after the last one this returned that satisfies `predicate`. */
    next(predicate) {
      let index = from;
      return messages.waitFor((m) => {
        const at = index++;
        if (m.binary) return undefined;
        const value = PanelServerMessage.parse(JSON.parse(m.data.toString('utf8')));
        if (!predicate(value)) return undefined;
        from = at + 1;
        return value;
      }, from);
    },
  };
}

describe('chats over the panel WebSocket', () => {
  it('tells every panel the agents and chats after the snapshot, and refreshes on request', async () => {
    const p = await panel();
    const snapshot = await p.messages.json((m) => m.type === 'snapshot');
    expect(snapshot.type).toBe('snapshot');
    const list = await p.messages.json((m) => m.type === 'chat.list');
    expect(Array.isArray(list.chats)).toBe(true);
    const agents = await p.messages.json((m) => m.type === 'chat.agents');
    expect(agents).toMatchObject({ configPath: join(configDir, 'agents.json'), configError: null });
    expect(agents.agents[0]).toEqual({ name: 'demo', command: process.execPath, args: [DEMO_AGENT], origin: 'config' });

    try {
      writeAgents('{ "agents": [ not json');
      const from = p.messages.all.length;
      p.send({ type: 'chat.refresh_agents' });
      // The file is watched too: a re-read it caused may come first, so the answer is told by what it says.
      const broken = await p.messages.json((m) => m.type === 'chat.agents' && m.configError !== null, from);
      expect(broken.configError).toMatch(/agents\.json: not valid JSON/);
      expect(broken.agents.every((a: { origin: string }) => a.origin === 'path')).toBe(true);

      writeAgents(JSON.stringify({ agents: [{ name: 'x', command: 'y', colour: 'red' }] }));
      const from2 = p.messages.all.length;
      p.send({ type: 'chat.refresh_agents' });
      const wrong = await p.messages.json((m) => m.type === 'chat.agents' && /colour/.test(m.configError ?? ''), from2);
      expect(wrong.configError).toMatch(/colour/);
    } finally {
      writeAgents(DEMO_CONFIG);
    }
  });

  // Issue 32 item 8: the pane's agents were read once per connection; a new agents.json needed "Look again".
  it('tells every panel the agents again when agents.json changes, unasked', async () => {
    const p = await panel();
    await p.messages.json((m) => m.type === 'chat.agents');
    const from = p.messages.all.length;
    const watched = { name: 'watched', command: process.execPath, args: [DEMO_AGENT] };
    try {
      // As an editor saves: a new file renamed over the old one.
      writeFileSync(join(configDir, 'agents.json.tmp'), JSON.stringify({ agents: [watched] }));
      renameSync(join(configDir, 'agents.json.tmp'), join(configDir, 'agents.json'));
      const told = await p.messages.json((m) => m.type === 'chat.agents' && m.agents.some((a: { name: string }) => a.name === 'watched'), from);
      expect(told.agents[0]).toEqual({ ...watched, origin: 'config' });
    } finally {
      writeAgents(DEMO_CONFIG);
    }
  });

  it('opens a chat, streams its events to every panel, replays them after a reload, and closes it', async () => {
    const a = await panel();
    const b = await panel();
    a.send({ type: 'chat.open', requestId: 'r1', agent: 'demo' });
    const opened = await a.next((m) => m.type === 'chat.opened');
    expect(opened).toMatchObject({ requestId: 'r1', info: { agentName: 'demo', state: 'starting', cwd: dir } });
    const chatId = opened.info.id;
    const seenByB = await b.next((m) => m.type === 'chat.opened');
    expect(seenByB.requestId).toBeUndefined();
    await a.next((m) => m.type === 'chat.event' && m.chatId === chatId && m.event.type === 'state' && m.event.info.state === 'ready');

    a.send({ type: 'chat.prompt', chatId, text: 'hi panel' });
    const done = await b.next((m) => m.type === 'chat.event' && m.chatId === chatId && m.event.type === 'state' && m.event.stopReason === 'end_turn');
    expect(done.event.info.state).toBe('ready');
    const text = b.messages.all
      .filter((m) => !m.binary)
      .map((m) => JSON.parse(m.data.toString()))
      .filter((m) => m.type === 'chat.event' && m.event.type === 'message' && m.event.role === 'agent')
      .map((m) => m.event.text)
      .join('');
    expect(text).toBe('You said: hi panel');

    const reloaded = await panel();
    const list = await reloaded.next((m) => m.type === 'chat.list');
    const chat = list.chats.find((c: any) => c.info.id === chatId);
    expect(chat.info.state).toBe('ready');
    expect(chat.events).toContainEqual({ type: 'message', role: 'agent', text: 'You said: hi panel' });

    b.send({ type: 'chat.close', chatId });
    await a.next((m) => m.type === 'chat.closed' && m.chatId === chatId);
    a.send({ type: 'chat.prompt', chatId, text: 'anyone?' });
    const error = await a.next((m) => m.type === 'error');
    expect(error).toMatchObject({ code: 'no_such_chat' });
  });

  it('answers bad chat requests with errors naming the problem, and carries the requestId', async () => {
    const p = await panel();
    p.send({ type: 'chat.open', requestId: 'r2', agent: 'nobody' });
    expect(await p.next((m) => m.type === 'error')).toMatchObject({ requestId: 'r2', code: 'no_such_agent', message: expect.stringContaining("'demo'") });
    p.send({ type: 'chat.open', requestId: 'r3', agent: 'demo', cwd: 'not/absolute' });
    expect(await p.next((m) => m.type === 'error')).toMatchObject({ requestId: 'r3', code: 'invalid_cwd' });
    p.send({ type: 'chat.prompt', chatId: 'c', text: '' });
    expect(await p.next((m) => m.type === 'error')).toMatchObject({ code: 'invalid_message' });
    p.send({ type: 'chat.answer', chatId: 'nope', questionId: 'q', optionId: null });
    expect(await p.next((m) => m.type === 'error')).toMatchObject({ code: 'no_such_chat' });
  });

  it("answers a question from the panel, and refuses input to an agent's read-only tab", async () => {
    const p = await panel();
    p.send({ type: 'chat.open', requestId: 'r4', agent: 'demo' });
    const chatId = (await p.next((m) => m.type === 'chat.opened')).info.id;
    await p.next((m) => m.type === 'chat.event' && m.event.type === 'state' && m.event.info.state === 'ready');

    p.send({ type: 'chat.prompt', chatId, text: 'run echo from-panel' });
    const question = await p.next((m) => m.type === 'chat.event' && m.event.type === 'question');
    // A panel reloaded meanwhile gets the open question in its replay and can answer it.
    const reloaded = await panel();
    const replay = (await reloaded.next((m) => m.type === 'chat.list')).chats.find((c: any) => c.info.id === chatId);
    expect(replay.info.state).toBe('prompting');
    expect(replay.events).toContainEqual(question.event);
    expect(replay.events.some((e: any) => e.type === 'answered')).toBe(false);
    reloaded.send({ type: 'chat.answer', chatId, questionId: question.event.questionId, optionId: 'allow' });
    await p.next((m) => m.type === 'chat.event' && m.event.type === 'answered' && m.event.optionId === 'allow');
    await p.next((m) => m.type === 'chat.event' && m.event.type === 'state' && m.event.stopReason === 'end_turn');

    p.send({ type: 'chat.prompt', chatId, text: 'own echo owned' });
    const created = await p.next((m) => m.type === 'event' && m.event.type === 'pty.created' && m.event.info.readOnly === true);
    expect(created.event.info).toMatchObject({ source: 'agent', ownerName: 'demo', pid: 0 });
    await p.next((m) => m.type === 'chat.event' && m.event.type === 'state' && m.event.stopReason === 'end_turn');
    p.send({ type: 'input', id: created.event.info.id, data: 'ls\r' });
    expect(await p.next((m) => m.type === 'error')).toMatchObject({ code: 'read_only' });
    // Its tab opens like any other: the screen restored from the log the agent's output went into.
    p.send({ type: 'attach', id: created.event.info.id, cursor: null });
    expect((await p.next((m) => m.type === 'resync' && m.id === created.event.info.id)).screen).toContain('owned');
    p.send({ type: 'chat.close', chatId });
    await p.next((m) => m.type === 'chat.closed');
  });

  it("gives the agent ptydeck's MCP server bound to the chat: its shells land under the chat's owner", async () => {
    const p = await panel();
    p.send({ type: 'chat.open', requestId: 'r5', agent: 'demo' });
    const info = (await p.next((m) => m.type === 'chat.opened')).info;
    await p.next((m) => m.type === 'chat.event' && m.event.type === 'state' && m.event.info.state === 'ready');
    p.send({ type: 'chat.prompt', chatId: info.id, text: 'mcp echo via-mcp' });
    const created = await p.next((m) => m.type === 'event' && m.event.type === 'pty.created');
    expect(created.event.info).toMatchObject({ source: 'agent', owner: info.owner, ownerName: 'demo' });
    await p.next((m) => m.type === 'chat.event' && m.event.type === 'state' && m.event.stopReason === 'end_turn');
    const said = p.messages.all
      .filter((m) => !m.binary)
      .map((m) => JSON.parse(m.data.toString()))
      .filter((m) => m.type === 'chat.event' && m.chatId === info.id && m.event.type === 'message' && m.event.role === 'agent')
      .map((m) => m.event.text)
      .join('');
    expect(said).toBe(`MCP terminal ${created.event.info.id}: exit code 0`);
    expect(service.get(created.event.info.id)?.status).toBe('running');
    p.send({ type: 'chat.close', chatId: info.id });
    await p.next((m) => m.type === 'chat.closed');
    // Closing the chat ends its shells too, not only the agent: the tab stays, exited.
    expect(service.get(created.event.info.id)?.status).toBe('exited');
  });

  it('refuses an MCP connection presenting an unknown or revoked chat binding', async () => {
    const client = new Client({ name: 'impostor', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL('/mcp', server.url), {
      requestInit: { headers: { Authorization: `Bearer ${server.agentToken}`, [CHAT_BINDING_HEADER]: 'not-a-binding' } },
    });
    await expect(client.connect(transport)).rejects.toThrow(/chat binding is not valid/);
    await client.close();
  });
});

describe("a chat's processes are semi-trusted, as a session's are", () => {
  /** Opens a chat with the demo agent on `p` and waits until it is ready. */
  async function readyChat(p: Awaited<ReturnType<typeof panel>>, requestId: string): Promise<{ id: string; owner: string }> {
    p.send({ type: 'chat.open', requestId, agent: 'demo' });
    const info = (await p.next((m) => m.type === 'chat.opened' && m.requestId === requestId)).info;
    await p.next((m) => m.type === 'chat.event' && m.chatId === info.id && m.event.type === 'state' && m.event.info.state === 'ready');
    return info;
  }

  it('gives no panel link to a command the agent runs itself, plain, with a scrubbed environment or in a session of its own', async () => {
    const p = await panel();
    const chat = await readyChat(p, 'link');
    const url = `${process.execPath} ${BIN} url`;
    const stateDir = join(dir, 'state');
    const script = [
      `PTYDECK_STATE_DIR=${stateDir} ${url}; echo "plain=$?"`,
      `env -i PTYDECK_STATE_DIR=${stateDir} setsid -w ${url}; echo "scrubbed=$?"`,
    ].join('; ');
    p.send({ type: 'chat.prompt', chatId: chat.id, text: `own ${script}` });
    const created = await p.next((m) => m.type === 'event' && m.event.type === 'pty.created' && m.event.info.owner === chat.owner);
    await waitForExit(service, created.event.info.id);
    const output = readAll(service, created.event.info.id).toString();
    expect(output).not.toContain('#ticket=');
    expect(output).toMatch(/plain=1/);
    expect(output).toMatch(/scrubbed=1/);
    expect(output).toMatch(/refused: process \d+ (is a process ptydeck started for a session or a chat|is in the POSIX session|carries PTYDECK_CHAT_ID)/);
    p.send({ type: 'chat.close', chatId: chat.id });
    await p.next((m) => m.type === 'chat.closed' && m.chatId === chat.id);
  });

  it("refuses the chat's MCP binding, read from its MCP server's environment, to a process of another session", async () => {
    const p = await panel();
    const chat = await readyChat(p, 'steal');
    // The agent's MCP server stays up while its terminal_run waits on the sleep.
    p.send({ type: 'chat.prompt', chatId: chat.id, text: 'mcp sleep 60' });
    await p.next((m) => m.type === 'event' && m.event.type === 'pty.created' && m.event.info.owner === chat.owner);
    const binding = environValue('PTYDECK_CHAT_BINDING');
    expect(binding, "the chat's MCP server is running with its binding").toBeDefined();

    // What any shell of the developer's user can do: present the binding with the agent token from server.json.
    const attempt = `
      const res = await fetch(${JSON.stringify(new URL('/mcp', server.url).href)}, {
        method: 'POST',
        headers: { Authorization: 'Bearer ${server.agentToken}', ${JSON.stringify(CHAT_BINDING_HEADER)}: process.env.STOLEN, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'thief', version: '1' } } }),
      });
      console.log('status=' + res.status, await res.text());`;
    const thief = service.create({ source: 'user', command: process.execPath, args: ['--input-type=module', '-e', attempt], env: { STOLEN: binding! } });
    await waitForExit(service, thief.id);
    const answer = readAll(service, thief.id).toString();
    expect(answer).toContain('status=403');
    expect(answer).toContain("only valid from the processes of the chat's own agent");
    expect(server.agents.list().some((agent) => agent.name === 'thief')).toBe(false);

    p.send({ type: 'chat.close', chatId: chat.id });
    await p.next((m) => m.type === 'chat.closed' && m.chatId === chat.id);
  });
});

describe('shutting down with chats open', () => {
  it('ends every agent, what each started itself, and every shell they opened', async () => {
    const own = createPtyService({ env: isolatedEnv(), killGraceMs: 500 });
    const local = await startLocalServer({
      service: own,
      stateDir: join(dir, 'state-shutdown'),
      appDir: '/nonexistent',
      configDir,
      launchDir: dir,
      agentEnv: isolatedEnv(),
      agentKillGraceMs: 500,
    });
    const ptyPids: number[] = [];
    own.on('pty.created', (event) => ptyPids.push(event.info.pid));
    const p = await panel(local);
    const open = async (requestId: string) => {
      p.send({ type: 'chat.open', requestId, agent: 'demo' });
      const info = (await p.next((m) => m.type === 'chat.opened' && m.requestId === requestId)).info;
      return info.id as string;
    };
    const [a, b, c] = [await open('a'), await open('b'), await open('c')];
    for (const chatId of [a, b, c]) {
      await p.messages.json((m) => m.type === 'chat.event' && m.chatId === chatId && m.event.type === 'state' && m.event.info.state === 'ready');
    }

    // a: a client terminal mid-command; b: a command the agent runs itself; c: a shell through ptydeck's MCP server.
    p.send({ type: 'chat.prompt', chatId: a, text: 'run sleep 600' });
    const question = await p.next((m) => m.type === 'chat.event' && m.chatId === a && m.event.type === 'question');
    p.send({ type: 'chat.answer', chatId: a, questionId: question.event.questionId, optionId: 'allow' });
    p.send({ type: 'chat.prompt', chatId: b, text: 'own sleep 600' });
    p.send({ type: 'chat.prompt', chatId: c, text: 'mcp sleep 600' });
    // The process table has no events to wait on.
    await until(() => ptyPids.filter((pid) => pid > 0).length >= 2 && descendantsOf(process.pid).some((e) => e.comm === 'sleep'), 'the sleeps have started');
    const agentPids = descendantsOf(process.pid)
      .filter((entry) => entry.comm === 'node' && entry.sid === entry.pid)
      .map((entry) => entry.pid);
    expect(agentPids.length).toBeGreaterThanOrEqual(3);

    await local.close();
    await own.dispose();
    expect(survivorsOf([...agentPids, ...ptyPids.filter((pid) => pid > 0)]), 'processes of any agent or shell still alive').toEqual([]);
  });
});
