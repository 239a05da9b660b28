import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPtyService } from '../pty/pty-service.js';
import type { PtyService } from '../pty/types.js';
import { startLocalServer, type LocalServer } from '../host/local-server.js';
import { postMcp } from '../testing/http.js';
import { fileTempDir, isolatedHome } from '../testing/isolated-env.js';

/**
 * MCP sessions whose clients never hold an event stream cannot be seen
 * leaving: they expire after a quiet spell, and there are never more than a
 * bounded number of them (5000 such sessions once held 236 MiB for good).
 */

let dir: string;
let service: PtyService;
let server: LocalServer;

/**
 * A server per test, each with the idle time it needs: the cap test must not
 * race expiry (on a loaded machine 12 initializations can take longer than a
 * short idle time, and the newest session would be gone before it is used).
 */
async function startServer(mcpIdleMs: number): Promise<void> {
  server = await startLocalServer({ service, stateDir: join(dir, `state-${mcpIdleMs}`), appDir: '/nonexistent', writeDiscovery: false, mcpIdleMs, maxMcpSessions: 5 });
}

beforeAll(() => {
  dir = fileTempDir('ptydeck-mcp-expiry-');
  const home = isolatedHome();
  service = createPtyService({ env: { ...process.env, HOME: home, HISTFILE: join(home, '.history') } });
});

afterEach(async () => {
  await server?.close();
});

afterAll(async () => {
  await service.dispose();
  rmSync(dir, { recursive: true, force: true });
});

function post(body: object, session?: string): Promise<Response> {
  return postMcp(server.url, server.agentToken, JSON.stringify(body), session);
}

/** A POST-only client: initialize and initialized, never a GET stream. */
async function postOnlyAgent(name: string): Promise<string> {
  const init = await post({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name, version: '1' } },
  });
  const session = init.headers.get('mcp-session-id');
  await init.text();
  if (!session) throw new Error(`no session for ${name}: ${init.status}`);
  const done = await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session);
  await done.text();
  return session;
}

function allGone(): Promise<void> {
  return new Promise((resolve) => {
    if (server.agents.list().length === 0) return resolve();
    const off = server.agents.onRemoved(() => {
      if (server.agents.list().length === 0) {
        off();
        resolve();
      }
    });
  });
}

describe('MCP sessions without a stream', () => {
  it('are capped: past the bound the least recently active goes', async () => {
    await startServer(60_000);
    const sessions: string[] = [];
    for (let i = 0; i < 12; i++) sessions.push(await postOnlyAgent(`post-only-${i}`));
    expect(server.agents.list().length).toBeLessThanOrEqual(5);
    expect(server.agents.list().map((a) => a.name)).toContain('post-only-11');
    // The newest still answers; an evicted one is told its session is gone.
    const listed = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, sessions[11]);
    expect(listed.status).toBe(200);
    await listed.text();
    const gone = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, sessions[0]);
    expect(gone.status).toBe(404);
    expect(await gone.text()).toMatch(/session is gone/);
  });

  it('expire once quiet for the idle time', async () => {
    await startServer(300);
    await postOnlyAgent('quiet-agent');
    await allGone();
    expect(server.agents.list()).toEqual([]);
  });
});
