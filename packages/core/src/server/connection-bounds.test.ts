import { rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import WebSocket from 'ws';
import { MAX_UNAUTHENTICATED_CONNECTIONS } from './connection-bounds.js';
import { startLocalServer, type LocalServer } from '../host/local-server.js';
import { openSocket } from '../testing/http.js';
import { fileTempDir } from '../testing/isolated-env.js';

/**
 * An attacker on loopback without the token: idle or half-sent connections
 * must neither pile up (22 000 of them once filled the descriptor table and
 * every request failed) nor outlive a short deadline, while the agent's MCP
 * session and the panel's WebSocket, which hold the token, are never cut.
 */

const DEADLINE_MS = 1000;
/** How long a wait here may take before it counts as hung: a bound on a hang, not on a loaded machine's speed. */
const HUNG_MS = 30_000;

let dir: string;
let server: LocalServer;
/**
 * A server whose deadline never comes within a test: only its cap closes idle connections, so how many it closed
 * does not depend on how fast a loaded machine opens them (with the short deadline, 500 opens outlasted it and the
 * deadline closed some the cap would have).
 */
let capped: LocalServer;
/** Connections the bounds closed, by why: told by the bounds themselves, so no clock decides whose close it was. */
const drops = { cap: 0, deadline: 0 };
const cappedDrops = { cap: 0, deadline: 0 };

beforeAll(async () => {
  dir = fileTempDir('ptydeck-bounds-');
  server = await startLocalServer({
    stateDir: join(dir, 'state'),
    appDir: '/nonexistent',
    writeDiscovery: false,
    connectionBounds: { deadlineMs: DEADLINE_MS, onDrop: (reason) => (drops[reason] += 1) },
  });
  capped = await startLocalServer({
    stateDir: join(dir, 'capped-state'),
    appDir: '/nonexistent',
    writeDiscovery: false,
    connectionBounds: { deadlineMs: 10 * HUNG_MS, onDrop: (reason) => (cappedDrops[reason] += 1) },
  });
});

afterAll(async () => {
  await server.close();
  await capped.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Rejects if `promise` has not settled within `ms`. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    promise,
    new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** A raw TCP connection to the server, with a promise of its close. */
function rawConnection(onClose: () => void, to: LocalServer = server): Promise<{ socket: Socket; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(to.port, '127.0.0.1');
    const closed = new Promise<void>((done) => socket.once('close', () => (onClose(), done())));
    socket.on('error', () => {}); // a reset from the server is what we expect
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('close', () => reject(new Error('closed before connecting')));
  });
}

async function mcpAgent(name: string, to: LocalServer = server) {
  const client = new Client({ name, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', to.url), {
    requestInit: { headers: { Authorization: `Bearer ${to.agentToken}` } },
  });
  await client.connect(transport);
  onTestFinished(async () => {
    await transport.terminateSession().catch(() => {});
    await client.close();
  });
  return client;
}

async function panel(to: LocalServer = server) {
  const opened = await openSocket(to.port, { headers: { Origin: to.url }, protocols: [`ptydeck.token.${to.panelToken}`] });
  if (!('ws' in opened)) throw new Error(`panel refused: ${opened.refused}`);
  onTestFinished(() => opened.ws.terminate());
  return opened;
}

describe('connections without credentials', () => {
  it('500 idle connections are capped, the oldest closed at once, while an agent and a panel work', async () => {
    const agent = await mcpAgent('capped-agent', capped);
    const steadyPanel = await panel(capped);
    await steadyPanel.messages.json((m) => m.type === 'snapshot');

    const COUNT = 500;
    let closedCount = 0;
    const sockets: Array<{ socket: Socket; closed: Promise<void> }> = [];
    onTestFinished(() => {
      for (const { socket } of sockets) socket.destroy();
    });
    const before = { ...cappedDrops };
    for (let i = 0; i < COUNT; i++) {
      // Sequential and bounded: one at a time keeps the test from being a flood of its own.
      sockets.push(await within(rawConnection(() => (closedCount += 1), capped), HUNG_MS, `idle connection ${i}`));
    }
    // Beyond the cap the oldest went at once: the cap is left waiting for a deadline that does not come here.
    await within(
      new Promise<void>((resolve) => {
        const check = () => (COUNT - closedCount <= MAX_UNAUTHENTICATED_CONNECTIONS ? resolve() : setImmediate(check));
        check();
      }),
      HUNG_MS,
      `all but ${MAX_UNAUTHENTICATED_CONNECTIONS} idle connections closed at once`,
    );
    expect(cappedDrops.cap - before.cap).toBe(COUNT - MAX_UNAUTHENTICATED_CONNECTIONS);
    expect(cappedDrops.deadline - before.deadline).toBe(0);

    // Beside the idle ones, an authenticated agent call and a new panel are answered: each evicts one more idle
    // one as it arrives (it is not trusted until its request is read), and is not cut itself.
    const listed = await within(agent.callTool({ name: 'terminal_list', arguments: {} }), HUNG_MS, 'terminal_list beside idle connections');
    expect(listed.isError).toBeFalsy();
    const freshPanel = await within(panel(capped), HUNG_MS, 'a panel beside idle connections');
    await within(freshPanel.messages.json((m) => m.type === 'snapshot'), HUNG_MS, 'the new panel snapshot');
    expect(steadyPanel.ws.readyState).toBe(WebSocket.OPEN);
    expect(COUNT - closedCount).toBeLessThanOrEqual(MAX_UNAUTHENTICATED_CONNECTIONS);
  });

  it('idle connections are closed by the deadline; an agent and a panel idle past it are not', async () => {
    // Opened first and kept idle past the deadline: these hold the token and must not be cut.
    const agent = await mcpAgent('steady-agent');
    const steadyPanel = await panel();
    await steadyPanel.messages.json((m) => m.type === 'snapshot');

    const COUNT = MAX_UNAUTHENTICATED_CONNECTIONS;
    let closedCount = 0;
    const sockets: Array<{ socket: Socket; closed: Promise<void> }> = [];
    onTestFinished(() => {
      for (const { socket } of sockets) socket.destroy();
    });
    const before = { ...drops };
    for (let i = 0; i < COUNT; i++) sockets.push(await within(rawConnection(() => (closedCount += 1)), HUNG_MS, `idle connection ${i}`));
    await within(Promise.all(sockets.map((s) => s.closed)), HUNG_MS, 'every idle connection closed');
    expect(closedCount).toBe(COUNT);
    // No more than the cap were ever open, so each went by the deadline, however fast they were opened.
    expect(drops.deadline - before.deadline).toBe(COUNT);
    expect(drops.cap - before.cap).toBe(0);

    // Long past the deadline, the panel opened before is still live and the agent's session still answers.
    expect(steadyPanel.ws.readyState).toBe(WebSocket.OPEN);
    const from = steadyPanel.messages.all.length;
    const made = await within(
      agent.callTool({ name: 'terminal_create', arguments: { command: 'sleep', args: ['30'] } }),
      HUNG_MS,
      'terminal_create after the deadline',
    );
    const id = (made.structuredContent as { id: string }).id;
    await within(
      steadyPanel.messages.json((m) => m.type === 'event' && m.event.type === 'pty.created' && m.event.info.id === id, from),
      HUNG_MS,
      'the steady panel hearing of the new session',
    );
    await agent.callTool({ name: 'terminal_close', arguments: { id } });
  });

  it('closes a connection that sends half a request, or idles after an answer, at the deadline', async () => {
    let closedCount = 0;
    const before = { ...drops };
    const half = await rawConnection(() => (closedCount += 1));
    const chatty = await rawConnection(() => (closedCount += 1));
    onTestFinished(() => {
      half.socket.destroy();
      chatty.socket.destroy();
    });
    half.socket.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n`);
    // A complete request without credentials: it is answered, and the connection stays open for more.
    const answered = new Promise<string>((resolve) => chatty.socket.once('data', (data: Buffer) => resolve(data.toString('latin1'))));
    chatty.socket.write(`GET /nothing-here HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nConnection: keep-alive\r\n\r\n`);
    expect(await within(answered, HUNG_MS, 'the answer')).toMatch(/^HTTP\/1\.1 404/);
    await within(Promise.all([half.closed, chatty.closed]), HUNG_MS, 'both closed');
    expect(closedCount).toBe(2);
    // Closed by the deadline, not by Node's 5 s keep-alive timeout (which would leave the count where it was).
    expect(drops.deadline - before.deadline).toBe(2);
    expect(drops.cap - before.cap).toBe(0);
  });
});
