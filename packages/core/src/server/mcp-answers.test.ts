import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createPtyService } from '../pty/pty-service.js';
import type { PtyService } from '../pty/types.js';
import { startLocalServer, type LocalServer } from '../host/local-server.js';
import { fileTempDir, isolatedHome } from '../testing/isolated-env.js';
import { postMcp } from '../testing/http.js';

/**
 * How /mcp answers a call, seen by the official SDK client over Streamable
 * HTTP: one plain JSON body when nothing streams during the call, an event
 * stream when the call sends progress (the client asked with a progress token).
 */

let service: PtyService;
let server: LocalServer;
let client: Client;
/** The shells' HOME: agents' shells are sandboxed, and see it (read-only) where they see none of the host's /tmp. */
let home: string;
/** The Content-Type of each POST's answer, in order. */
const answeredAs: string[] = [];

/** A server on the shared service whose answers commit to a stream after `streamAfterMs`, and an SDK client of it that records each POST's Content-Type. */
async function serveAndConnect(name: string, streamAfterMs: number, answered: string[]): Promise<{ server: LocalServer; client: Client }> {
  const server = await startLocalServer({ service, stateDir: fileTempDir('ptydeck-mcp-answers-'), writeDiscovery: false, appDir: '/nonexistent', mcpStreamAfterMs: streamAfterMs });
  const client = new Client({ name, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', server.url), {
    requestInit: { headers: { Authorization: `Bearer ${server.agentToken}` } },
    fetch: async (url, init) => {
      const response = await fetch(url, init);
      if (init?.method === 'POST' && response.status === 200) answered.push(response.headers.get('content-type') ?? '');
      return response;
    },
  });
  await client.connect(transport);
  return { server, client };
}

beforeAll(async () => {
  home = isolatedHome();
  service = createPtyService({ env: { ...process.env, HOME: home }, killGraceMs: 500 });
  // No call here outlives a minute: which form an answer takes depends on what the call sent, never on
  // how long a loaded machine took to run it (past the default 1 s it is committed to a stream).
  ({ server, client } = await serveAndConnect('answers', 60_000, answeredAs));
});

afterAll(async () => {
  await client?.close();
  await server?.close();
  await service?.dispose();
});

/** Calls a tool and says how its POST was answered. */
async function call(name: string, args: Record<string, unknown>, onprogress?: (message: string) => void) {
  const before = answeredAs.length;
  const result = await client.callTool({ name, arguments: args }, undefined, onprogress ? { onprogress: (p) => onprogress(p.message ?? '') } : undefined);
  expect(answeredAs.length).toBe(before + 1);
  return { result: result as { isError?: boolean; structuredContent?: Record<string, any> }, contentType: answeredAs[before]! };
}

describe('/mcp answers', () => {
  it('a call that streams nothing with one application/json body', async () => {
    const { result, contentType } = await call('terminal_run', { command: 'echo hi' });
    expect(result.structuredContent).toMatchObject({ exit_code: 0, output: 'hi\n' });
    expect(contentType).toBe('application/json');
    expect(answeredAs[0]).toBe('application/json');
  });

  it('a call with a progress token with an event stream that carries its progress', async () => {
    const messages: string[] = [];
    const { result, contentType } = await call('terminal_run', { command: 'for i in 1 2 3; do echo tick$i; sleep 0.1; done' }, (m) => messages.push(m));
    expect(result.structuredContent).toMatchObject({ exit_code: 0, output: 'tick1\ntick2\ntick3\n' });
    expect(messages.join('')).toBe('tick1\ntick2\ntick3\n');
    expect(contentType).toBe('text/event-stream');
  });

  it('a progress token on a call that sends no progress still with JSON', async () => {
    const messages: string[] = [];
    const { result, contentType } = await call('terminal_run', { command: 'true' }, (m) => messages.push(m));
    expect(result.structuredContent).toMatchObject({ exit_code: 0, output: '' });
    expect(messages).toEqual([]);
    expect(contentType).toBe('application/json');
  });
});

describe('/mcp answers, a call whose session ends first', () => {
  it('ends its POST with an empty event stream, as a stream the session closed would end', async () => {
    const init = await postMcp(server.url, server.agentToken, JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }), null);
    const session = init.headers.get('mcp-session-id')!;
    await init.text();
    const shells = service.list().length;
    // No progress token: taken as a quiet call, whose answer the transport's close alone would never settle.
    const call = postMcp(server.url, server.agentToken, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'terminal_run', arguments: { command: 'sleep 30' } } }), session);
    await expect.poll(() => service.list().length).toBe(shells + 1);
    const ended = await fetch(new URL('/mcp', server.url), { method: 'DELETE', headers: { Authorization: `Bearer ${server.agentToken}`, 'Mcp-Session-Id': session, 'Mcp-Protocol-Version': '2025-06-18' } });
    expect(ended.status).toBe(200);
    const answer = await call;
    expect(answer.headers.get('content-type')).toBe('text/event-stream');
    expect(await answer.text()).toBe('');
  });
});

describe('/mcp answers, a request that takes the id of one still running', () => {
  it('is refused, quiet or streamed, and the running call keeps its own answer', async () => {
    const init = await postMcp(server.url, server.agentToken, JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }), null);
    const session = init.headers.get('mcp-session-id')!;
    await init.text();
    const post = (body: unknown) => postMcp(server.url, server.agentToken, JSON.stringify(body), session);
    const shells = service.list().length;
    // A quiet call (no progress token) and a streamed one (with one), each running until a file is made.
    const go = join(home, 'go');
    const running = (id: number, meta: Record<string, unknown>) =>
      post({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'terminal_run', arguments: { command: `until [ -e ${go} ]; do sleep 0.02; done; echo got-${id}` }, ...meta } });
    const quiet = running(1, {});
    const streamed = running(2, { _meta: { progressToken: 'p' } });
    await expect.poll(() => service.list().length).toBe(shells + 2);
    // Before, a batch taking id 1 got no answer and the quiet call was answered with the batch's tools/list.
    for (const body of [[{ jsonrpc: '2.0', id: 1, method: 'tools/list' }], { jsonrpc: '2.0', id: 2, method: 'tools/list' }]) {
      const refused = await post(body);
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ error: { code: -32600, message: expect.stringMatching(/still running/) } });
    }
    writeFileSync(go, '');
    expect(await (await quiet).text()).toContain('got-1');
    expect(await (await streamed).text()).toContain('got-2');
  });
});

describe('/mcp answers, a call that outlives the stream commit', () => {
  let slowServer: LocalServer;
  let slowClient: Client;
  const answered: string[] = [];
  beforeAll(async () => {
    ({ server: slowServer, client: slowClient } = await serveAndConnect('answers-slow', 50, answered));
  });
  afterAll(async () => {
    await slowClient?.close();
    await slowServer?.close();
  });

  it('is answered on an event stream opened before its end, so a client waiting for headers knows it is alive', async () => {
    // The command sleeps ten times the commit's 50 ms: the headers went out before the answer existed.
    const result = (await slowClient.callTool({ name: 'terminal_run', arguments: { command: 'sleep 0.5; echo late' } })) as { structuredContent?: Record<string, unknown> };
    expect(result.structuredContent).toMatchObject({ exit_code: 0, output: 'late\n' });
    expect(answered.at(-1)).toBe('text/event-stream');
  });
});
