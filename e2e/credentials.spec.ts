// Browser credentials stay with their origin. Browsers do not separate cookies
// by port, so a cookie set by ptydeck on 127.0.0.1 would go to every server on
// any port of 127.0.0.1, another local user's included, and two ptydecks in one
// browser would overwrite each other's. The panel token lives in sessionStorage
// (one origin, port included) instead; these tests hold the browser to that.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, launchServer, test } from './fixtures.js';

test('a server on another port of this host, visited by the same browser, receives no ptydeck credential', async ({ panel, server, context }) => {
  const seen: Array<{ url: string; headers: IncomingMessage['headers'] }> = [];
  const other = createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end('<!doctype html><title>another local service</title><img src="/pixel.png">');
  });
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  const port = (other.address() as AddressInfo).port;
  try {
    // The developer's panel is open and connected; then the same browser visits the other port.
    await expect(panel.getByTestId('connection-status')).toHaveAttribute('data-state', 'connected');
    const visit = await context.newPage();
    for (const host of ['127.0.0.1', 'localhost']) {
      await visit.goto(`http://${host}:${port}/`);
      await expect.poll(() => seen.filter((s) => s.url === '/pixel.png').length).toBeGreaterThanOrEqual(host === 'localhost' ? 2 : 1);
    }
    expect(seen.length).toBeGreaterThanOrEqual(4);
    for (const request of seen) {
      expect(request.headers.cookie, `cookie sent to ${request.url}`).toBeUndefined();
      const headers = JSON.stringify(request.headers);
      expect(headers).not.toContain(server.panelToken);
      expect(headers).not.toContain(server.agentToken);
    }
  } finally {
    other.closeAllConnections();
    await new Promise((resolve) => other.close(resolve));
  }
});

test('two ptydecks in one browser both stay connected, across reloads', async ({ panel, server, context }) => {
  const second = await launchServer();
  try {
    const other = await context.newPage();
    await other.goto(await second.server.panelUrl());
    await expect(other.getByTestId('connection-status')).toHaveAttribute('data-state', 'connected');
    // The ticket left both address bars.
    expect(panel.url()).toBe(`${server.url}/`);
    expect(other.url()).toBe(`${second.server.url}/`);

    // Opening the second did not log the first out: each keeps its own token, and a reload finds it.
    for (const tab of [panel, other, panel]) {
      await tab.reload();
      await expect(tab.getByTestId('connection-status')).toHaveAttribute('data-state', 'connected');
    }
    expect(await panel.evaluate(() => sessionStorage.getItem('ptydeck.panelToken'))).toBe(server.panelToken);
    expect(await other.evaluate(() => sessionStorage.getItem('ptydeck.panelToken'))).toBe(second.server.panelToken);

    // Each is live on its own server: a terminal opened in each shows up on that server only.
    const before = [(await server.sessions()).length, (await second.server.sessions()).length];
    await panel.getByTestId('new-terminal').click();
    await expect.poll(async () => (await server.sessions()).length).toBe(before[0]! + 1);
    await other.getByTestId('new-terminal').click();
    await expect.poll(async () => (await second.server.sessions()).length).toBe(before[1]! + 1);
    expect((await server.sessions()).length).toBe(before[0]! + 1);
  } finally {
    await second.dispose();
  }
});

test('a page without a credential says how to get in, and a spent link says it was used', async ({ panel, server, context }) => {
  const bare = await context.newPage();
  await bare.goto(`${server.url}/`);
  await expect(bare.getByTestId('no-credential')).toContainText('ptydeck url');
  await expect(bare.getByTestId('connection-status')).toHaveCount(0);

  // The link the panel fixture opened was traded once already.
  const link = await server.panelUrl();
  const first = await context.newPage();
  await first.goto(link);
  await expect(first.getByTestId('connection-status')).toHaveAttribute('data-state', 'connected');
  const again = await context.newPage();
  await again.goto(link);
  await expect(again.getByTestId('no-credential')).toContainText('already used');
  // What to do is said once, not once by the host's refusal and again by the page.
  expect((await again.getByTestId('no-credential').innerText()).match(/ptydeck url/g)).toHaveLength(1);
  await expect(panel.getByTestId('connection-status')).toHaveAttribute('data-state', 'connected');
});
