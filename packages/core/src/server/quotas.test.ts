import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPtyService } from '../pty/pty-service.js';
import type { PtyService } from '../pty/types.js';
import { startLocalServer, type LocalServer } from '../host/local-server.js';
import { fileTempDir } from '../testing/isolated-env.js';

/**
 * Quotas by source and owner, through the real server: an agent reconnecting
 * in a loop leaves orphans that neither lock the developer out nor stop the
 * next agent from getting its sessions.
 */

let dir: string;
let service: PtyService;
let server: LocalServer;

beforeAll(async () => {
  dir = fileTempDir('ptydeck-quotas-');
  const home = join(dir, 'home');
  mkdirSync(home);
  // 10 live sessions, 2 kept for the developer: agents share 8.
  service = createPtyService({ env: { ...process.env, HOME: home, HISTFILE: join(home, '.history') }, maxLiveSessions: 10, reservedUserSessions: 2 });
  server = await startLocalServer({ service, stateDir: join(dir, 'state'), appDir: '/nonexistent', writeDiscovery: false });
});

afterAll(async () => {
  await server.close();
  await service.dispose();
  rmSync(dir, { recursive: true, force: true });
});

async function agent(name: string) {
  const client = new Client({ name, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', server.url), {
    requestInit: { headers: { Authorization: `Bearer ${server.agentToken}` } },
  });
  await client.connect(transport);
  const create = async () => {
    const result = (await client.callTool({ name: 'terminal_create', arguments: { command: 'sleep', args: ['1000'] } })) as {
      isError?: boolean;
      content: Array<{ text?: string }>;
      structuredContent?: { id: string };
    };
    if (result.isError) throw new Error(result.content[0]?.text);
    return result.structuredContent!.id;
  };
  const leave = async () => {
    const gone = new Promise<void>((resolve) => {
      const off = server.agents.onRemoved((agent) => {
        if (agent.name === name) {
          off();
          resolve();
        }
      });
    });
    await transport.terminateSession();
    await client.close();
    await gone;
  };
  return { create, leave };
}

const live = (source: 'agent' | 'user') => service.list().filter((info) => info.source === source && info.status === 'running');

describe('quotas by source and owner', () => {
  it('a reconnect loop neither locks the developer out nor starves the next agent', async () => {
    for (let round = 0; round < 3; round++) {
      const looping = await agent(`looper-${round}`);
      // Each round takes the agents' whole share, then drops the connection without closing anything.
      for (let i = 0; i < 8; i++) await looping.create();
      await looping.leave();
      expect(live('agent').length).toBeLessThanOrEqual(8);
    }
    // The orphans stayed for the developer, bounded.
    expect(live('agent')).toHaveLength(8);

    const next = await agent('next-agent');
    const mine = [];
    for (let i = 0; i < 4; i++) mine.push(await next.create());
    expect(mine).toHaveLength(4);

    const developer = service.create({ command: 'sleep', args: ['1000'], source: 'user' });
    expect(developer.status).toBe('running');
    const another = service.create({ command: 'sleep', args: ['1000'], source: 'user' });
    expect(another.status).toBe('running');
    await next.leave();
  });
});
