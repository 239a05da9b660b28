import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPtyService } from '../pty/pty-service.js';
import type { PtyService } from '../pty/types.js';
import { startLocalServer, type LocalServer } from '../host/local-server.js';
import { postMcp } from '../testing/http.js';
import { fileTempDir, isolatedHome } from '../testing/isolated-env.js';

/**
 * JSON-RPC errors over Streamable HTTP, with raw fetch against the real server:
 * each malformed frame gets the code the JSON-RPC spec names (-32700 not JSON,
 * -32600 not a request, -32601 no such method, -32602 bad params) with a short
 * message, notifications never get an answer, and the session keeps working.
 */

let service: PtyService;
let server: LocalServer;
let sessionId = '';

interface RpcError {
  jsonrpc: string;
  id: unknown;
  error: { code: number; message: string };
}

/** POST one body; `session` null sends none (as before initialize). */
async function post(body: string, session: string | null = sessionId): Promise<{ status: number; text: string }> {
  const response = await postMcp(server.url, server.agentToken, body, session);
  return { status: response.status, text: await response.text() };
}

/** The one JSON-RPC message in a JSON or SSE body. */
function onlyMessage(text: string): any {
  const trimmed = text.trim();
  const messages = trimmed.startsWith('{') || trimmed.startsWith('[')
    ? [JSON.parse(trimmed)]
    : text
        .split('\n')
        .filter((line) => line.startsWith('data:') && line.slice(5).trim() !== '')
        .map((line) => JSON.parse(line.slice(5)));
  expect(messages, text).toHaveLength(1);
  return messages[0];
}

async function rpcError(body: string, session: string | null = sessionId): Promise<RpcError & { status: number }> {
  const response = await post(body, session);
  const message = onlyMessage(response.text) as RpcError;
  expect(message.jsonrpc).toBe('2.0');
  expect(message.error, response.text).toBeDefined();
  return { ...message, status: response.status };
}

beforeAll(async () => {
  service = createPtyService({ env: { ...process.env, HOME: isolatedHome() }, killGraceMs: 500 });
  server = await startLocalServer({ service, stateDir: fileTempDir('ptydeck-jsonrpc-'), writeDiscovery: false, appDir: '/nonexistent' });
  const init = await fetch(new URL('/mcp', server.url), {
    method: 'POST',
    headers: { Authorization: `Bearer ${server.agentToken}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  });
  expect(init.status).toBe(200);
  sessionId = init.headers.get('mcp-session-id') ?? '';
  await init.text();
  expect((await post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }))).status).toBe(202);
});

afterAll(async () => {
  await server?.close();
  await service?.dispose();
});

describe('JSON-RPC errors over HTTP', () => {
  it('answers a body that is not JSON with -32700 Parse error', async () => {
    for (const session of [sessionId, null]) {
      const answer = await rpcError('{"jsonrpc":"2.0",', session);
      expect(answer.error.code).toBe(-32700);
      expect(answer.id).toBeNull();
      expect(answer.status).toBe(400);
    }
  });

  it.each([
    ['an object that is no JSON-RPC message', '{"foo":1}'],
    ['an empty batch', '[]'],
    ['a number', '42'],
    ['a string', '"tools/list"'],
    ['null', 'null'],
    ['the wrong jsonrpc version', '{"jsonrpc":"1.0","method":"tools/list"}'],
    ['a batch holding junk', '[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"foo":1}]'],
  ])('answers %s with -32600 Invalid Request and id null, in a session and before one', async (_name, body) => {
    for (const session of [sessionId, null]) {
      const answer = await rpcError(body, session);
      expect(answer.error.code, `${body} (session ${session ?? 'none'})`).toBe(-32600);
      expect(answer.id).toBeNull();
      expect(answer.error.message).toMatch(/^Invalid Request/);
      expect(answer.status).toBe(400);
    }
  });

  it('answers -32600 with the request id when one can be read', async () => {
    const answer = await rpcError('{"jsonrpc":"2.0","id":7,"method":42}');
    expect(answer.error.code).toBe(-32600);
    expect(answer.id).toBe(7);
    expect(answer.error.message).toMatch(/method/);
  });

  it.each([
    ['no params', {}, /params\.name/],
    ['params without name', { params: { arguments: {} } }, /params\.name/],
    ['a name that is not a string', { params: { name: 5, arguments: {} } }, /params\.name/],
    ['arguments that are not an object', { params: { name: 'terminal_list', arguments: [1] } }, /params\.arguments/],
    ['params that are not an object', { params: 'terminal_list' }, /params/],
  ])('answers tools/call with %s with -32602 Invalid params and a short message', async (_name, extra, mentions) => {
    const answer = await rpcError(JSON.stringify({ jsonrpc: '2.0', id: 'call', method: 'tools/call', ...extra }));
    expect(answer.error.code).toBe(-32602);
    expect(answer.id).toBe('call');
    expect(answer.error.message).toMatch(mentions);
    // A sentence for a model, not a validation dump.
    expect(answer.error.message.length).toBeLessThan(200);
    expect(answer.error.message).not.toMatch(/invalid_type|"path"|\[\s*\{/);
  });

  it('answers tools/list with a cursor with -32602: there is one page, so no cursor is valid', async () => {
    const answer = await rpcError(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: { cursor: 'garbage' } }));
    expect(answer.error.code).toBe(-32602);
    expect(answer.id).toBe(3);
    expect(answer.error.message).toMatch(/cursor/);
  });

  it('answers initialize with bad params with -32602 before a session exists', async () => {
    const answer = await rpcError(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { capabilities: {} } }), null);
    expect(answer.error.code).toBe(-32602);
    expect(answer.id).toBe(1);
    expect(answer.error.message).toMatch(/protocolVersion/);
  });

  it('still answers an unknown method with -32601', async () => {
    const answer = await rpcError(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/frobnicate', params: {} }));
    expect(answer.error.code).toBe(-32601);
    expect(answer.id).toBe(4);
  });

  it.each([
    ['an unknown notification', { jsonrpc: '2.0', method: 'notifications/frobnicate' }],
    ['a tools/call without id and without name', { jsonrpc: '2.0', method: 'tools/call', params: {} }],
    ['a tools/list without id with a cursor', { jsonrpc: '2.0', method: 'tools/list', params: { cursor: 'x' } }],
    ['a notification whose params are not an object', { jsonrpc: '2.0', method: 'notifications/cancelled', params: 5 }],
  ])('never answers a notification: %s gets 202 and no body', async (_name, body) => {
    const response = await post(JSON.stringify(body));
    expect(response.status).toBe(202);
    expect(response.text).toBe('');
  });

  it('keeps serving the session after all of that', async () => {
    const response = await post(JSON.stringify({ jsonrpc: '2.0', id: 'ok', method: 'tools/list' }));
    expect(response.status).toBe(200);
    const message = onlyMessage(response.text);
    expect(message.id).toBe('ok');
    expect(message.result.tools.map((t: { name: string }) => t.name)).toContain('terminal_run');
    expect(message.result.nextCursor).toBeUndefined();
  });
});
