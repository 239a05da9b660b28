import { chmodSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnsafeStateError } from '../common/discovery.js';
import { startLocalServer, type LocalServer } from './local-server.js';
import { openSocket } from '../testing/http.js';
import { until } from '../testing/poll-until.js';
import { readOptional } from '../proc/proc-fs.js';
import { hostIdOf } from '../pty/session-labels.js';
import { fileTempDir } from '../testing/isolated-env.js';

let server: LocalServer;
let stateDir: string;

beforeAll(async () => {
  stateDir = fileTempDir('ptydeck-local-');
  server = await startLocalServer({ stateDir, appDir: '/nonexistent' });
});

afterAll(async () => {
  await server.close();
});

function mcpClient(name: string, token = server.agentToken, headers: Record<string, string> = {}) {
  const client = new Client({ name, version: '9.9.9' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', server.url), {
    requestInit: { headers: { Authorization: `Bearer ${token}`, ...headers } },
  });
  return { client, transport };
}

function structured(result: unknown): Record<string, unknown> {
  return (result as { structuredContent: Record<string, unknown> }).structuredContent;
}

describe('startLocalServer', () => {
  it('serves MCP over Streamable HTTP to the official SDK client, and the panel sees the agent come and go', async () => {
    const panel = await openSocket(server.port, { headers: { Origin: server.url }, protocols: [`ptydeck.token.${server.panelToken}`] });
    if (!('ws' in panel)) throw new Error(`refused ${panel.refused}`);

    const { client, transport } = mcpClient('test-agent');
    await client.connect(transport);
    onTestFinished(async () => {
      await transport.terminateSession().catch(() => {});
      await client.close();
      panel.ws.close();
    });
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain('terminal_run');

    const joined = await panel.messages.json((m) => m.type === 'agent.added');
    expect(joined.agent).toMatchObject({ name: 'test-agent', version: '9.9.9', transport: 'http' });
    expect(server.agents.list()).toHaveLength(1);

    // The transport is under test here, not the tool: create and list are enough to prove calls reach it.
    const made = structured(await client.callTool({ name: 'terminal_create', arguments: { command: 'sleep', args: ['30'] } }));
    expect(typeof made.id).toBe('string');
    const listed = structured(await client.callTool({ name: 'terminal_list', arguments: {} }));
    expect(JSON.stringify(listed)).toContain(String(made.id));
    const created = await panel.messages.json((m) => m.type === 'event' && m.event.type === 'pty.created');
    expect(created.event.info).toMatchObject({ id: made.id, source: 'agent', ownerName: 'test-agent', owner: joined.agent.id });

    await transport.terminateSession();
    await client.close();
    await panel.messages.json((m) => m.type === 'agent.removed' && m.id === joined.agent.id);
    panel.ws.close();
  });

  it('refuses MCP without the token, with a wrong one, with the panel token, a foreign Origin or a rebinding Host, and spawns nothing', async () => {
    const before = server.service.list().length;
    const agentsBefore = server.agents.list().length;
    for (const [token, headers] of [
      ['', {}],
      ['wrong-token', {}],
      // The panel token is panel scope: it is no MCP bearer.
      [server.panelToken, {}],
      [server.agentToken, { Origin: 'http://evil.example' }],
      [server.agentToken, { Origin: 'null' }],
    ] as const) {
      const { client, transport } = mcpClient('intruder', token, headers);
      await expect(client.connect(transport)).rejects.toThrow();
    }
    expect(server.service.list().length).toBe(before);
    expect(server.agents.list()).toHaveLength(agentsBefore);
  });

  it('notices an agent that vanished without ending its session once its event stream stays gone', async () => {
    const dir = fileTempDir('ptydeck-local-abandon-');
    const quick = await startLocalServer({ stateDir: dir, appDir: '/nonexistent', mcpAbandonMs: 100 });
    onTestFinished(() => quick.close());
    const left = new Promise<void>((resolve) => quick.agents.onRemoved(() => quick.agents.list().length === 0 && resolve()));
    const client = new Client({ name: 'vanishing', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL('/mcp', quick.url), {
      requestInit: { headers: { Authorization: `Bearer ${quick.agentToken}` } },
    });
    await client.connect(transport);
    expect(quick.agents.list()).toEqual([expect.objectContaining({ name: 'vanishing' })]);
    // The client opens its event stream right after initialize; a round trip lets that GET land first.
    await client.listTools();
    // close() drops the connections without DELETE: what a killed agent looks like from here.
    await transport.close();
    await left;
  });

  it('tells a client whose session is gone that ptydeck restarted', async () => {
    const response = await fetch(new URL('/mcp', server.url), {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${server.agentToken}`,
        'Mcp-Session-Id': 'from-a-previous-launch',
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(404);
    expect((await response.json()).error.message).toMatch(/ptydeck restarted/);
  });

  it('refuses to start on a state directory other users can write, as the desktop app starts it', async () => {
    const dir = fileTempDir('ptydeck-local-lax-');
    chmodSync(dir, 0o777);
    const started = startLocalServer({ stateDir: dir, appDir: '/nonexistent' });
    await expect(started).rejects.toThrow(UnsafeStateError);
    await expect(started).rejects.toThrow(`chmod 700 ${dir}`);
    expect(existsSync(join(dir, 'server.json'))).toBe(false);
  });

  it("marks its sessions' processes with its state directory's host id, as every host of that directory does (issue 32.1)", async () => {
    const info = server.service.create({ source: 'user', command: 'sleep', args: ['100'] });
    try {
      await until(() => (readOptional(`/proc/${info.pid}/environ`) ?? '').split('\0').includes(`PTYDECK_HOST_ID=${hostIdOf(stateDir)}`), 'the session runs with the host id');
      expect(server.service.labels.hostId).toBe(hostIdOf(stateDir));
    } finally {
      await server.service.remove(info.id);
    }
  });

  it('close() ends the sessions of the service it created and removes the discovery file', async () => {
    const dir = fileTempDir('ptydeck-local-close-');
    const own = await startLocalServer({ stateDir: dir, appDir: '/nonexistent' });
    const info = own.service.create({ source: 'user', command: 'sleep', args: ['100'] });
    expect(existsSync(join(dir, 'server.json'))).toBe(true);
    await own.close();
    expect(existsSync(join(dir, 'server.json'))).toBe(false);
    expect(() => process.kill(info.pid, 0)).toThrow();
  });
});
