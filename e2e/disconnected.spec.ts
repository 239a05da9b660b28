// No silent dead states: a page whose server went away says it is disconnected, takes no keys it cannot
// deliver, shows nothing as live, and after a while says what to do.
import { connectAgent, expect, expectScreen, keepScreenshot, screenText, terminalOf, test } from './fixtures.js';

// A page opened without its one-time link: e2e/credentials.spec.ts (no cookie any more: each page holds its own token).

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
