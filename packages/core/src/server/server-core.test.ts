import { mkdtempSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PtyService } from '../pty/types.js';
import { startServerCore, type ServerCore } from './server-core.js';
import { openSocket, rawRequest } from './testing/http.js';

/**
 * These tests exercise the HTTP boundary alone, so the PTY service is a
 * recorder: any call that would spawn or touch a session is counted, and the
 * refusal tests assert that count stays at zero.
 */
function recordingService(): PtyService & { calls: string[] } {
  const calls: string[] = [];
  const record = (name: string) => () => {
    calls.push(name);
    throw new Error(`${name} must not be reached`);
  };
  return {
    calls,
    create: record('create'),
    write: record('write'),
    resize: record('resize'),
    kill: record('kill'),
    remove: record('remove'),
    read: record('read'),
    get: () => undefined,
    list: () => [],
    on: () => () => {},
    dispose: async () => {},
  } as unknown as PtyService & { calls: string[] };
}

let stateDir: string;
let appDir: string;
let core: ServerCore;
let service: ReturnType<typeof recordingService>;

beforeEach(async () => {
  const root = mkdtempSync(join(tmpdir(), 'ptydeck-core-'));
  stateDir = join(root, 'state');
  appDir = join(root, 'app');
  mkdirSync(join(appDir, 'assets'), { recursive: true });
  writeFileSync(join(appDir, 'index.html'), '<!doctype html><title>ptydeck</title>');
  writeFileSync(join(appDir, 'assets', 'main.js'), 'console.log(1)');
  writeFileSync(join(appDir, 'assets', 'style.css'), 'body{}');
  writeFileSync(join(root, 'secret.txt'), 'outside');
  symlinkSync(join(root, 'secret.txt'), join(appDir, 'link.txt'));
  service = recordingService();
  core = await startServerCore({ service, stateDir, appDir });
});

afterEach(async () => {
  await core.close();
});

describe('discovery file', () => {
  it('is written 0600 with url, token, pid and instance, and removed on close', async () => {
    const file = join(stateDir, 'server.json');
    expect(core.discoveryFile).toBe(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const record = JSON.parse(readFileSync(file, 'utf8'));
    expect(record).toEqual({ url: core.url, token: core.token, pid: process.pid, instance: core.instance });
    await core.close();
    expect(existsSync(file)).toBe(false);
  });
});

describe('token', () => {
  it('is 256 bits of base64url and the url is loopback', () => {
    expect(Buffer.from(core.token, 'base64url')).toHaveLength(32);
    expect(core.url).toBe(`http://127.0.0.1:${core.port}`);
  });
});

describe('/mcp refuses without the right token, Origin and Host', () => {
  const initialize = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'evil', version: '1' } },
  });
  const post = (headers: Record<string, string>) =>
    rawRequest(core.port, '/mcp', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
      body: initialize,
    });

  it('no token => 401', async () => {
    expect((await post({})).status).toBe(401);
  });
  it('wrong token => 401', async () => {
    expect((await post({ Authorization: `Bearer ${core.token.slice(0, -2)}xx` })).status).toBe(401);
    expect((await post({ Authorization: `Basic ${core.token}` })).status).toBe(401);
  });
  it('foreign Origin => 403 even with the token', async () => {
    const res = await post({ Authorization: `Bearer ${core.token}`, Origin: 'http://evil.example' });
    expect(res.status).toBe(403);
  });
  it('another localhost port as Origin => 403', async () => {
    const res = await post({ Authorization: `Bearer ${core.token}`, Origin: `http://127.0.0.1:${core.port + 1}` });
    expect(res.status).toBe(403);
  });
  it('Origin: null => 403', async () => {
    expect((await post({ Authorization: `Bearer ${core.token}`, Origin: 'null' })).status).toBe(403);
  });
  it('rebinding Host => 403', async () => {
    const res = await post({ Authorization: `Bearer ${core.token}`, Host: `attacker.example:${core.port}` });
    expect(res.status).toBe(403);
    const wrongPort = await post({ Authorization: `Bearer ${core.token}`, Host: `127.0.0.1:${core.port + 1}` });
    expect(wrongPort.status).toBe(403);
  });
  it('the right token from the right origin reaches MCP (503 here: no MCP factory given)', async () => {
    const res = await post({ Authorization: `Bearer ${core.token}`, Origin: `http://localhost:${core.port}` });
    expect(res.status).toBe(503);
    expect(service.calls).toEqual([]);
  });
});

describe('panel WebSocket refuses without auth, Origin and Host', () => {
  const origin = () => `http://127.0.0.1:${core.port}`;
  it('no token => 401', async () => {
    expect(await openSocket(core.port, { headers: { Origin: origin() } })).toEqual({ refused: 401 });
  });
  it('wrong token => 401', async () => {
    const result = await openSocket(core.port, { headers: { Origin: origin() }, protocols: ['ptydeck.token.nope'] });
    expect(result).toEqual({ refused: 401 });
    const wrongCookie = await openSocket(core.port, { headers: { Origin: origin(), Cookie: 'ptydeck_session=nope' } });
    expect(wrongCookie).toEqual({ refused: 401 });
  });
  it('foreign Origin, Origin null and rebinding Host => 403 even with the token', async () => {
    const protocols = [`ptydeck.token.${core.token}`];
    expect(await openSocket(core.port, { headers: { Origin: 'http://evil.example' }, protocols })).toEqual({ refused: 403 });
    expect(await openSocket(core.port, { headers: { Origin: 'null' }, protocols })).toEqual({ refused: 403 });
    expect(
      await openSocket(core.port, { headers: { Origin: `http://attacker.example:${core.port}`, Host: `attacker.example:${core.port}` }, protocols }),
    ).toEqual({ refused: 403 });
    expect(service.calls).toEqual([]);
  });
  it('the token subprotocol opens it and a snapshot arrives; the token is not echoed when ptydeck.v1 is offered', async () => {
    const result = await openSocket(core.port, {
      headers: { Origin: origin() },
      protocols: ['ptydeck.v1', `ptydeck.token.${core.token}`],
    });
    if (!('ws' in result)) throw new Error(`refused ${result.refused}`);
    expect(result.ws.protocol).toBe('ptydeck.v1');
    expect(await result.messages.json()).toEqual({
      type: 'snapshot',
      sessions: [],
      agents: [],
      instance: core.instance,
      mcpLaunch: { command: 'node', args: [expect.stringMatching(/bin\/ptydeck\.js$/), 'mcp'] },
    });
    result.ws.close();
  });
});

describe('ticket exchange', () => {
  it('sets an HttpOnly SameSite=Strict cookie once, redirects to /, and the cookie opens the panel socket', async () => {
    const url = new URL(core.panelUrl());
    expect(url.origin).toBe(core.url);
    const first = await rawRequest(core.port, `${url.pathname}${url.search}`);
    expect(first.status).toBe(303);
    expect(first.headers.location).toBe('/');
    const cookie = String(first.headers['set-cookie']);
    expect(cookie).toMatch(/^ptydeck_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    expect(cookie).not.toContain(core.token);
    const again = await rawRequest(core.port, `${url.pathname}${url.search}`);
    expect(again.status).toBe(403);
    expect(again.headers['set-cookie']).toBeUndefined();

    const pair = cookie.split(';')[0]!;
    const result = await openSocket(core.port, { headers: { Origin: core.url, Cookie: pair } });
    expect('ws' in result).toBe(true);
    if ('ws' in result) result.ws.close();
  });
  it('mints a fresh link at POST /ticket for a holder of the token only', async () => {
    expect((await rawRequest(core.port, '/ticket', { method: 'POST' })).status).toBe(401);
    expect((await rawRequest(core.port, '/ticket', { method: 'POST', headers: { Authorization: 'Bearer nope' } })).status).toBe(401);
    const auth = { Authorization: `Bearer ${core.token}` };
    expect((await rawRequest(core.port, '/ticket', { method: 'POST', headers: { ...auth, Origin: 'http://evil.example' } })).status).toBe(403);
    expect((await rawRequest(core.port, '/ticket', { headers: auth })).status).toBe(405);
    const minted = await rawRequest(core.port, '/ticket', { method: 'POST', headers: auth });
    expect(minted.status).toBe(200);
    expect(minted.headers['cache-control']).toBe('no-store');
    const link = new URL(JSON.parse(minted.body).url);
    expect((await rawRequest(core.port, link.pathname + link.search)).status).toBe(303);
  });
  it('tells a page whether it may open the panel socket at /panel/access, for the cookie or the token', async () => {
    expect((await rawRequest(core.port, '/panel/access')).status).toBe(401);
    expect((await rawRequest(core.port, '/panel/access', { headers: { Cookie: 'ptydeck_session=forged' } })).status).toBe(401);
    expect((await rawRequest(core.port, '/panel/access', { headers: { Origin: 'http://evil.example' } })).status).toBe(403);
    const url = new URL(core.panelUrl());
    const cookie = String((await rawRequest(core.port, `${url.pathname}${url.search}`)).headers['set-cookie']).split(';')[0]!;
    const allowed = await rawRequest(core.port, '/panel/access', { headers: { Cookie: cookie } });
    expect(allowed.status).toBe(204);
    expect(allowed.headers['cache-control']).toBe('no-store');
  });
  it('refuses a forged ticket', async () => {
    expect((await rawRequest(core.port, '/?ticket=forged')).status).toBe(403);
  });
  it('expires', async () => {
    const short = await startServerCore({ service, writeDiscovery: false, appDir, ticketTtlMs: 0 });
    try {
      const url = new URL(short.panelUrl());
      expect((await rawRequest(short.port, url.pathname + url.search)).status).toBe(403);
    } finally {
      await short.close();
    }
  });
});

describe('static files', () => {
  it('serves index.html at / with a strict CSP and the right MIME types, without a token', async () => {
    const index = await rawRequest(core.port, '/');
    expect(index.status).toBe(200);
    expect(index.headers['content-type']).toBe('text/html; charset=utf-8');
    const csp = String(index.headers['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain(`connect-src 'self' ws://127.0.0.1:${core.port}`);
    expect(csp).not.toContain('unsafe-eval');
    expect(csp).toContain("frame-ancestors 'none'");
    expect(index.headers['x-content-type-options']).toBe('nosniff');
    expect((await rawRequest(core.port, '/assets/main.js')).headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect((await rawRequest(core.port, '/assets/style.css')).headers['content-type']).toBe('text/css; charset=utf-8');
    expect((await rawRequest(core.port, '/missing.js')).status).toBe(404);
  });
  it('refuses traversal, encoded traversal and symlinks out of the app directory', async () => {
    for (const path of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/%2e%2e%2f%2e%2e%2fsecret.txt', '/link.txt', '/assets/..%5c..%5csecret.txt', '/%00']) {
      const res = await rawRequest(core.port, path);
      expect([403, 404], path).toContain(res.status);
      expect(res.body).not.toContain('outside');
    }
  });
  it('refuses a rebinding Host and a foreign Origin for static files too', async () => {
    expect((await rawRequest(core.port, '/', { headers: { Host: `attacker.example:${core.port}` } })).status).toBe(403);
    expect((await rawRequest(core.port, '/', { headers: { Origin: 'http://evil.example' } })).status).toBe(403);
  });
  it('refuses methods other than GET and HEAD', async () => {
    expect((await rawRequest(core.port, '/', { method: 'POST', body: 'x' })).status).toBe(405);
  });
});
