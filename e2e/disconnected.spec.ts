// No silent dead states: a page without credentials says how to get in, and a
// page whose server went away says it is disconnected, takes no keys it cannot
// deliver, shows nothing as live, and after a while says what to do.
import { connectAgent, expect, expectScreen, keepScreenshot, screenText, terminalOf, test } from './fixtures.js';

test('a page opened without its one-time link says how to get in', async ({ page, server }) => {
  // What `ptydeck serve` prints first: the server's address, no ticket.
  await page.goto(server.url);
  const problem = page.getByTestId('connection-problem');
  await expect(problem).toContainText('not signed in');
  await expect(problem).toContainText('ptydeck url');
  await expect(page.getByTestId('connection-status')).toHaveText('Not signed in');
  await keepScreenshot(page, 'no-credentials');

  // The link from `ptydeck url`, opened in another tab, signs this one in too (same cookie).
  const other = await page.context().newPage();
  await other.goto(server.panelUrl());
  await expect(page.getByTestId('connection-status')).toHaveAttribute('data-state', 'connected', { timeout: 15_000 });
  await expect(problem).toHaveCount(0);
});

test('when the server goes away the page says so, takes no keys and shows nothing as live', async ({ panel: page, server }) => {
  const agent = await connectAgent(server);
  const created = await agent.call<{ id: string }>('terminal_create', { title: 'orphan' });
  await expectScreen(page, created.id, /^e2e#/m);
  await expect(page.getByTestId('agent')).toHaveAttribute('data-connected', 'true');
  await terminalOf(page, created.id).click();
  await expect(terminalOf(page, created.id).locator('textarea')).toBeFocused();

  await server.close();
  await agent.client.close().catch(() => {});
  await expect(page.getByTestId('terminal-panel')).toHaveAttribute('data-offline', 'true');
  await expect(page.getByTestId('connection-problem')).toContainText('Disconnected');
  await expect(page.getByTestId('panel-offline')).toBeVisible();
  // Nothing claims the agent sees what is typed: it cannot.
  await expect(page.getByTestId('typing-banner')).toHaveCount(0);
  await expect(page.getByTestId('agent')).toHaveAttribute('data-connected', 'unknown');
  await expect(page.getByTestId('overview-session-status')).toHaveText('unknown');
  await expect(page.locator(`[role="tab"][data-session-id="${created.id}"] .status-dot.running`)).toHaveCount(0);

  // Keys typed now go nowhere, and the terminal does not pretend they went somewhere.
  const before = await screenText(page, created.id);
  await page.keyboard.type('echo into-the-void');
  expect(await screenText(page, created.id)).toBe(before);

  // After a few attempts: what to do.
  await expect(page.getByTestId('connection-advice')).toContainText('ptydeck url', { timeout: 20_000 });
  await keepScreenshot(page, 'server-gone');
});
