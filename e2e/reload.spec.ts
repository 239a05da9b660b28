// Reloading the renderer keeps every session: the tabs come back (the active one
// too), each screen is restored from the server, and the shells still answer.
import { AGENT_NAME, activeSessionId, expect, expectScreen, keepScreenshot, panelRegion, terminalOf, test } from './fixtures.js';

test('a page reload restores the tabs and their screens', async ({ panel: page, agent }) => {
  const created = await agent.call<{ id: string }>('terminal_create', { title: 'server' });
  await agent.call('terminal_run', { id: created.id, command: 'echo agent-before-reload-$((1+1))' });
  await expectScreen(page, created.id, /^agent-before-reload-2$/m);

  await page.keyboard.press('Control+Shift+T');
  await expect(page.getByRole('tab')).toHaveCount(2);
  const userId = await activeSessionId(page);
  await expect(terminalOf(page, userId).locator('textarea')).toBeFocused();
  await page.keyboard.type('echo user-before-reload-$((5*5))');
  await page.keyboard.press('Enter');
  await expectScreen(page, userId, /^user-before-reload-25$/m);
  const tabsBefore = await page.getByRole('tab').evaluateAll((tabs) => tabs.map((tab) => tab.getAttribute('aria-label')));

  await page.reload();
  await expect(page.getByTestId('connection-status')).toHaveAttribute('data-state', 'connected');
  await expect(panelRegion(page)).toBeVisible();
  // The same tabs, in the same order, and the tab that was active is active again.
  await expect
    .poll(() => page.getByRole('tab').evaluateAll((tabs) => tabs.map((tab) => tab.getAttribute('aria-label'))))
    .toEqual(tabsBefore);
  await expect(page.getByRole('tab', { name: `${AGENT_NAME} agent: server` })).toHaveAttribute('data-session-id', created.id);
  expect(await activeSessionId(page)).toBe(userId);

  // Both screens, restored from the server; each command line above its output.
  await expectScreen(page, userId, /echo user-before-reload-\$\(\(5\*5\)\)\nuser-before-reload-25$/m);
  await expectScreen(page, created.id, /echo agent-before-reload-\$\(\(1\+1\)\)\nagent-before-reload-2$/m);
  await keepScreenshot(page, 'panel-after-reload');

  // The restored terminals are live: the developer's shell answers, and the agent's output still streams.
  await terminalOf(page, userId).click();
  await page.keyboard.type('echo user-after-reload-$((7*6))');
  await page.keyboard.press('Enter');
  await expectScreen(page, userId, /^user-after-reload-42$/m);
  await agent.call('terminal_run', { id: created.id, command: 'echo agent-after-reload-$((8*8))' });
  await expectScreen(page, created.id, /^agent-after-reload-64$/m);
});
