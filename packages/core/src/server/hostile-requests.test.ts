import { readFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createPtyService } from '../pty/pty-service.js';
import type { PtyService } from '../pty/types.js';
import { startLocalServer, type LocalServer } from '../host/local-server.js';
import { exchangeTicket, openSocket, rawRequest, ticketOf } from '../testing/http.js';
import { fileTempDir, isolatedHome } from '../testing/isolated-env.js';
import { descendantsOf } from '../testing/process-table.js';

/**
 * Hostile requests against the real local server with a real PTY service: no
 * token, a wrong one, a foreign Origin, `Origin: null`, a DNS-rebinding Host,
 * on every authenticated route. Every attempt is refused, and "nothing
 * spawned" is checked where it happens: the service's events and session list,
 * the agent registry and this process's children in the process table.
 */

// Every secret comparison must go through timingSafeEqual on equal-length
// digests; wrap it (behaviour unchanged) so the tests can see each call.
const timingSafeCalls: Array<{ a: number; b: number }> = [];
vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof import('node:crypto')>();
  const timingSafeEqual = (a: NodeJS.ArrayBufferView, b: NodeJS.ArrayBufferView) => {
    timingSafeCalls.push({ a: a.byteLength, b: b.byteLength });
    return crypto.timingSafeEqual(a, b);
  };
  return { ...crypto, default: { ...crypto, timingSafeEqual }, timingSafeEqual };
});

let service: PtyService;
let server: LocalServer;
let created = 0;
let stderr = '';
const realStderrWrite = process.stderr.write.bind(process.stderr);
let legit: { client: Client; transport: StreamableHTTPClientTransport };
let legitPanelToken: string;

beforeAll(async () => {
  // Anything the server writes to stderr while under attack is checked for the token.
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    stderr += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return (realStderrWrite as (...args: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stderr.write;
  service = createPtyService({ env: { ...process.env, HOME: isolatedHome() }, killGraceMs: 500 });
  service.on('pty.created', () => created++);
  const stateDir = fileTempDir('ptydeck-hostile-');
  // Unsandboxed (a sandbox passes the same environment on, bubblewrap adding nothing): the tests read the
  // sessions' processes by the pids the tool reports, which a sandbox gives as seen inside it.
  server = await startLocalServer({ service, stateDir, appDir: '/nonexistent', sandbox: false });

  // A legitimate agent and a legitimate browser page exist: the attacks below
  // reuse their MCP session id and panel token where a real attacker could have them.
  legit = {
    client: new Client({ name: 'legit-agent', version: '1' }),
    transport: new StreamableHTTPClientTransport(new URL('/mcp', server.url), {
      requestInit: { headers: { Authorization: `Bearer ${server.agentToken}` } },
    }),
  };
  await legit.client.connect(legit.transport);
  const exchange = await exchangeTicket(server.panelUrl());
  expect(exchange.status).toBe(200);
  legitPanelToken = (JSON.parse(exchange.body) as { token: string }).token;
});

afterAll(async () => {
  process.stderr.write = realStderrWrite as typeof process.stderr.write;
  await legit.transport.terminateSession().catch(() => {});
  await legit.client.close();
  await server.close();
  await service.dispose();
});

interface Attack {
  name: string;
  /** Authorization for /mcp, or undefined for none. */
  bearer?: string;
  /** Offered panel subprotocols. */
  protocols?: string[];
  /** A live one-time ticket to trade, for the attacks that hold valid credentials. */
  ticket?: boolean;
  headers: Record<string, string>;
  /** 401: no valid credential; 403: a valid credential from the wrong Host or Origin. */
  expected: 401 | 403;
}

function attacks(): Attack[] {
  const port = server.port;
  const agent = server.agentToken;
  const panel = legitPanelToken;
  // Each variant of a secret is tried where that secret belongs: agent token on /mcp, panel token on the panel.
  const variants = (change: (token: string) => string) => ({ bearer: change(agent), protocols: [`ptydeck.token.${change(panel)}`] });
  const good = { bearer: agent, protocols: ['ptydeck.v1', `ptydeck.token.${panel}`], ticket: true };
  return [
    { name: 'no token', headers: {}, expected: 401 },
    { name: 'wrong token', ...variants(() => 'x'.repeat(43)), headers: {}, expected: 401 },
    { name: 'token with its first character changed', ...variants((t) => (t[0] === 'A' ? 'B' : 'A') + t.slice(1)), headers: {}, expected: 401 },
    { name: 'token with its last character changed', ...variants((t) => t.slice(0, -1) + (t.endsWith('A') ? 'B' : 'A')), headers: {}, expected: 401 },
    { name: 'a prefix of the token', ...variants((t) => t.slice(0, 20)), headers: {}, expected: 401 },
    { name: 'the token with a suffix', ...variants((t) => `${t}x`), headers: {}, expected: 401 },
    // The scopes stay apart: each token presented where the other belongs.
    { name: 'each token in the other scope', bearer: panel, protocols: ['ptydeck.v1', `ptydeck.token.${agent}`], headers: {}, expected: 401 },
    { name: 'foreign Origin with valid credentials', ...good, headers: { Origin: 'http://evil.example' }, expected: 403 },
    { name: 'Origin null with valid credentials', ...good, headers: { Origin: 'null' }, expected: 403 },
    { name: 'another localhost port as Origin', ...good, headers: { Origin: `http://127.0.0.1:${port + 1}` }, expected: 403 },
    { name: 'https Origin of this host', ...good, headers: { Origin: `https://127.0.0.1:${port}` }, expected: 403 },
    { name: 'DNS-rebinding Host', ...good, headers: { Host: `attacker.example:${port}` }, expected: 403 },
    {
      name: 'DNS-rebinding Host and its own Origin',
      ...good,
      headers: { Host: `attacker.example:${port}`, Origin: `http://attacker.example:${port}` },
      expected: 403,
    },
    { name: 'loopback Host with the wrong port', ...good, headers: { Host: `127.0.0.1:${port + 1}` }, expected: 403 },
    { name: 'a Host that only starts like loopback', ...good, headers: { Host: `127.0.0.1.attacker.example:${port}` }, expected: 403 },
  ];
}

function initializeBody(name: string): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name, version: '1' } },
  });
}

function createCallBody(): string {
  return JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'terminal_create', arguments: { command: 'sleep', args: ['60'] } } });
}

function httpHeaders(attack: Attack, extra: Record<string, string> = {}): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    ...(attack.bearer !== undefined ? { Authorization: `Bearer ${attack.bearer}` } : {}),
    ...attack.headers,
    ...extra,
  };
}

describe('hostile requests', () => {
  it('refuses every attack on /mcp, the ticket exchange and the panel socket, and nothing is spawned or registered', async () => {
    const childrenBefore = new Set(descendantsOf(process.pid).map((p) => p.pid));
    const createdBefore = created;
    const agentsBefore = server.agents.list().map((a) => a.id);
    const legitSession = legit.transport.sessionId!;
    expect(legitSession).toBeTruthy();

    const outcomes: string[] = [];
    let refusals = 0;
    for (const attack of attacks()) {
      const requests: Array<[string, Promise<{ status: number; body: string; headers: Record<string, unknown> }>]> = [
        ['POST /mcp initialize', rawRequest(server.port, '/mcp', { method: 'POST', headers: httpHeaders(attack), body: initializeBody('intruder') })],
        [
          'POST /mcp terminal_create on the legitimate session',
          rawRequest(server.port, '/mcp', {
            method: 'POST',
            headers: httpHeaders(attack, { 'Mcp-Session-Id': legitSession, 'Mcp-Protocol-Version': '2025-06-18' }),
            body: createCallBody(),
          }),
        ],
        ['GET /mcp event stream', rawRequest(server.port, '/mcp', { headers: httpHeaders(attack, { 'Mcp-Session-Id': legitSession, Accept: 'text/event-stream' }) })],
        ['DELETE /mcp session', rawRequest(server.port, '/mcp', { method: 'DELETE', headers: httpHeaders(attack, { 'Mcp-Session-Id': legitSession }) })],
        [
          // Attacks holding valid credentials hold a live ticket too; the others a forged one.
          'POST /ticket/exchange',
          rawRequest(server.port, '/ticket/exchange', {
            method: 'POST',
            headers: httpHeaders(attack),
            body: JSON.stringify({ ticket: attack.ticket ? ticketOf(server.panelUrl()) : 'x'.repeat(43) }),
          }),
        ],
      ];
      for (const [route, pending] of requests) {
        const response = await pending;
        outcomes.push(`${attack.name} | ${route} | ${response.status}`);
        // A session id with a token that is not this launch's is answered as a session from before a
        // restart (404, without looking the id up); everything else without the token is 401.
        const carriesSession = route.includes('session') || route.includes('stream');
        // No ticket exchange succeeds: a forged ticket and a foreign or missing Origin are both 403.
        const expected = route.includes('exchange') ? 403 : attack.expected === 401 && carriesSession ? 404 : attack.expected;
        expect(response.status, `${attack.name}: ${route}`).toBe(expected);
        if (expected === 404) expect(response.body).toContain('ptydeck restarted; this session is gone');
        for (const secret of [server.agentToken, server.panelToken]) {
          expect(response.body).not.toContain(secret);
          expect(JSON.stringify(response.headers)).not.toContain(secret);
        }
        refusals++;
      }
      const panel = await openSocket(server.port, {
        headers: { Origin: server.url, ...attack.headers },
        protocols: attack.protocols ?? [],
      });
      if ('ws' in panel) {
        panel.ws.close();
        throw new Error(`${attack.name}: the panel socket opened`);
      }
      outcomes.push(`${attack.name} | panel socket | ${panel.refused}`);
      expect(panel.refused, `${attack.name}: panel socket`).toBe(attack.expected);
      refusals++;
    }

    // The legitimate agent is still served after all that: the attacks did not end its session either.
    const listed = await legit.client.callTool({ name: 'terminal_list', arguments: {} });
    expect(listed.isError, JSON.stringify(listed.content)).toBeFalsy();

    expect(refusals).toBe(attacks().length * 6);
    expect(created - createdBefore, 'sessions created by attackers').toBe(0);
    expect(service.list()).toEqual([]);
    expect(server.agents.list().map((a) => a.id)).toEqual(agentsBefore);
    const newChildren = descendantsOf(process.pid).filter((p) => !childrenBefore.has(p.pid));
    expect(newChildren, 'processes started during the attacks').toEqual([]);
    expect(stderr).not.toContain(server.agentToken);
    expect(stderr).not.toContain(server.panelToken);
  });

  it('compares every presented secret in constant time, whatever its length or where it differs', async () => {
    const token = server.agentToken;
    for (const presented of ['', 'x', token.slice(0, -1), `${token}${token}`, (token[0] === 'A' ? 'B' : 'A') + token.slice(1), 'y'.repeat(10_000)]) {
      timingSafeCalls.length = 0;
      const response = await rawRequest(server.port, '/mcp', { method: 'POST', headers: { Authorization: `Bearer ${presented}` }, body: initializeBody('timing') });
      expect(response.status).toBe(401);
      // An empty bearer does not even parse as one; every other value is compared, as digests of equal length.
      if (presented === '') continue;
      expect(timingSafeCalls, `presented ${presented.length} chars`).toEqual([{ a: 32, b: 32 }]);
    }
    // The panel subprotocol goes through the same comparison.
    timingSafeCalls.length = 0;
    const refused = await openSocket(server.port, { headers: { Origin: server.url }, protocols: ['ptydeck.token.short'] });
    expect(refused).toEqual({ refused: 401 });
    expect(timingSafeCalls).toEqual([{ a: 32, b: 32 }]);
    // A wrong ticket is compared against every live one the same way, and says nothing.
    server.panelUrl();
    timingSafeCalls.length = 0;
    const forged = await exchangeTicket(`${server.url}/#ticket=${'z'.repeat(43)}`);
    expect(forged.status).toBe(403);
    expect(timingSafeCalls.length).toBeGreaterThanOrEqual(1);
    expect(timingSafeCalls.every((call) => call.a === 32 && call.b === 32)).toBe(true);
  });

  it('keeps both tokens out of session processes: neither their argv nor their environment carries one', async () => {
    const made = await legit.client.callTool({ name: 'terminal_create', arguments: { command: 'sleep', args: ['60'] } });
    expect(made.isError, JSON.stringify(made.content)).toBeFalsy();
    const { id, pid } = made.structuredContent as { id: string; pid: number };
    try {
      // Right after the fork the child is still a copy of its parent: wait for its exec.
      const cmdline = await vi.waitFor(() => {
        const text = readFileSync(`/proc/${pid}/cmdline`, 'latin1');
        expect(text).toContain('sleep');
        return text;
      });
      const environ = readFileSync(`/proc/${pid}/environ`, 'latin1');
      expect(environ).toContain('PTYDECK_SESSION_ID=');
      for (const secret of [server.agentToken, server.panelToken]) {
        expect(cmdline).not.toContain(secret);
        expect(environ).not.toContain(secret);
        // Nor does this process's own argv or environment (the panel token is in no environment at all).
        expect(readFileSync('/proc/self/cmdline', 'latin1')).not.toContain(secret);
      }
      expect(readFileSync('/proc/self/environ', 'latin1')).not.toContain(server.panelToken);
    } finally {
      await legit.client.callTool({ name: 'terminal_close', arguments: { id, force: true } });
    }
  });
});
