// How an agent's tab comes and goes: a command that exits at once is not an
// error, a close the agent asked for is not a failure, and a tab is named after
// what it runs.
import { expect, keepScreenshot, test } from './fixtures.js';

test.use({ lingerMs: 60_000 });

test('fast-exiting agent commands raise no error notice', async ({ panel: page, agent }) => {
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) ids.push((await agent.call<{ id: string }>('terminal_create', { command: 'true', title: `quick-${i}` })).id);
  for (const id of ids) {
    await expect(page.locator(`[role="tab"][data-session-id="${id}"]`)).toHaveAttribute('data-status', 'exited');
  }
  // Each tab was fitted to the panel as it opened; a resize that lost the race to the exit is no news.
  // A round trip after those resizes (the socket keeps order): any error reply for them came before it.
  await page.getByTestId('panel-new-terminal').click();
  await expect(page.locator('[role="tab"][data-source="user"]')).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('notice')).toHaveCount(0);
});

test('a shell the agent closed shows as closed, not as failed', async ({ panel: page, agent }) => {
  const created = await agent.call<{ id: string }>('terminal_create', { title: 'done-with' });
  const tab = page.locator(`[role="tab"][data-session-id="${created.id}"]`);
  await expect(tab).toHaveAttribute('data-status', 'running');
  const closed = await agent.call<{ process_signal: string | null }>('terminal_close', { id: created.id });
  expect(closed.process_signal).toBe('SIGHUP');
  await expect(tab).toHaveAttribute('data-status', 'exited');
  await expect(tab.getByTestId('tab-exit-code')).toHaveText('closed');
  await expect(tab.locator('.status-dot.failed')).toHaveCount(0);
  await keepScreenshot(page, 'agent-closed-tab');
});
