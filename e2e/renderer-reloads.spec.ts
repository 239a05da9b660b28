// The renderer reloaded 20 times in a row while an agent's shell keeps
// printing: every reload reconnects and restores the screen, the session
// never notices, and the server lets go of every panel the reloads left behind.
import { expect, expectScreen, test } from './fixtures.js';

const RELOADS = 20;

test(`${RELOADS} reloads in a row: each reconnects and restores the screen, and no panel is left behind on the server`, async ({ panel: page, agent, server }) => {
  test.setTimeout(180_000);
  const created = await agent.call<{ id: string; pid: number }>('terminal_create', { title: 'steady' });
  await agent.call('terminal_run', { id: created.id, command: 'echo start-$((40+2))' });
  await expectScreen(page, created.id, /^start-42$/m);

  // Count the service subscriptions panels make from now on: a panel the server never let go would keep its own.
  const mark = await server.markSubscriptions();

  // (Playwright does not report the close of a socket torn down by navigation: the server side is checked instead.)
  const sockets: Array<{ url: string }> = [];
  page.on('websocket', (ws) => sockets.push({ url: ws.url() }));

  let perPanel = 0;
  for (let i = 1; i <= RELOADS; i++) {
    await page.reload();
    await expect(page.getByTestId('connection-status')).toHaveAttribute('data-state', 'connected');
    // Output written while this renderer is up reaches it, on top of the restored screen.
    // The command line echoes `$((i+0))`; only its output reads `reload-i-done`.
    await agent.call('terminal_run', { id: created.id, command: `echo reload-$((${i}+0))-done` });
    await expectScreen(page, created.id, new RegExp(`^reload-${i}-done$`, 'm'));
    if (i === 1) perPanel = await server.liveSubscriptionsSince(mark);
  }
  expect(perPanel, 'a connected panel subscribes to the service').toBeGreaterThan(0);
  // Every earlier panel is gone on the server, only the current one remains.
  await expect.poll(() => server.liveSubscriptionsSince(mark), { message: 'live panel subscriptions after the reloads' }).toBe(perPanel);
  expect(sockets.length).toBeGreaterThanOrEqual(RELOADS);
  for (const s of sockets) expect(s.url).not.toContain(server.panelToken);

  // The session went through all of it untouched.
  expect(await server.sessions()).toEqual([expect.objectContaining({ id: created.id, status: 'running' })]);
  await expectScreen(page, created.id, new RegExp(`^reload-${RELOADS - 1}-done$`, 'm'));
});
