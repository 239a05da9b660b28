// The developer's keyboard, focus and attention stay theirs: an agent's new
// shell opens in the background, a hidden panel stays hidden, and a tab that
// closes itself gives the active tab back to the one the developer was in.
import { AGENT_NAME, activeSessionId, expect, expectScreen, keepScreenshot, panelRegion, screenText, terminalOf, test } from './fixtures.js';

test.use({ lingerMs: 500 });

const LINE = 'echo 0123456789abcdefghijklmnopqrstuvwxyz';

test('an agent opening a shell while the developer types takes neither the tab nor the keyboard', async ({ panel: page, agent }) => {
  await page.getByTestId('new-terminal').click();
  const own = await activeSessionId(page);
  await expect(terminalOf(page, own).locator('textarea')).toBeFocused();
  await expectScreen(page, own, /^e2e#/m);

  // Typing, key by key; the agent's terminal_create lands in the middle of it.
  const typing = page.keyboard.type(LINE, { delay: 25 });
  await expectScreen(page, own, /echo 0123/);
  const created = await agent.call<{ id: string }>('terminal_create', { title: 'background' });
  await typing;
  await page.keyboard.press('Enter');
  await expectScreen(page, own, /^0123456789abcdefghijklmnopqrstuvwxyz$/m);

  const agentTab = page.getByRole('tab', { name: `${AGENT_NAME} agent: background` });
  await expect(agentTab).toHaveAttribute('data-session-id', created.id);
  await expect(agentTab).toHaveAttribute('aria-selected', 'false');
  await expect(agentTab.getByTestId('tab-new')).toBeVisible();
  expect(await activeSessionId(page)).toBe(own);
  await expect(terminalOf(page, own).locator('textarea')).toBeFocused();
  await keepScreenshot(page, 'agent-tab-in-background');

  // Looking at it clears the mark.
  await agentTab.click();
  await expect(agentTab.getByTestId('tab-new')).toHaveCount(0);
});

test('a panel the developer hid stays hidden when an agent opens a shell; the tab count says so', async ({ panel: page, agent }) => {
  await page.getByTestId('new-terminal').click();
  await expect(panelRegion(page)).toBeVisible();
  await page.getByTestId('panel-hide').click();
  await expect(panelRegion(page)).toBeHidden();

  const created = await agent.call<{ id: string }>('terminal_create', { title: 'while-hidden' });
  await expect(page.getByTestId('tab-count')).toHaveAttribute('data-unseen', '1');
  await expect(page.getByTestId('tab-count')).toHaveText('2');
  await expect(panelRegion(page)).toBeHidden();
  await keepScreenshot(page, 'hidden-panel-new-tab-count');

  await page.getByTestId('toggle-panel').click();
  await expect(panelRegion(page)).toBeVisible();
  await expect(page.locator(`[role="tab"][data-session-id="${created.id}"]`)).toHaveAttribute('aria-selected', 'false');
});

test('when the tab the developer is in lingers out, the tab they were in before comes back', async ({ panel: page, agent }) => {
  await page.getByTestId('new-terminal').click();
  const own = await activeSessionId(page);
  const lingering = await agent.call<{ id: string }>('terminal_create', { title: 'lingering' });
  await agent.call<{ id: string }>('terminal_create', { title: 'neighbour' });
  await expect(page.getByRole('tab')).toHaveCount(3);

  await page.getByRole('tab', { name: `${AGENT_NAME} agent: lingering` }).click();
  expect(await activeSessionId(page)).toBe(lingering.id);
  await agent.call('terminal_send', { id: lingering.id, text: 'exit 0\r', wait_ms: 0 });
  await expect(page.getByRole('tab')).toHaveCount(2);
  expect(await activeSessionId(page)).toBe(own);
});

test('a lingered-out tab reopened from the overview stays open, and pins survive a reload', async ({ panel: page, agent }) => {
  const failed = await agent.call<{ id: string }>('terminal_create', { title: 'make build' });
  await agent.call('terminal_send', { id: failed.id, text: 'echo build-broke; exit 3\r', wait_ms: 0 });
  const row = page.locator(`[data-testid="overview-session"][data-session-id="${failed.id}"]`);
  await expect(row).toHaveAttribute('data-status', 'exited');
  await expect(page.getByRole('tab')).toHaveCount(0);

  await row.getByRole('button').click();
  const tab = page.locator(`[role="tab"][data-session-id="${failed.id}"]`);
  await expect(tab).toHaveAttribute('aria-selected', 'true');
  await expectScreen(page, failed.id, /^build-broke$/m);
  // Well past the 500 ms linger: wait for a later tab to arrive and linger out first.
  const later = await agent.call<{ id: string }>('terminal_create', { title: 'later' });
  await agent.call('terminal_send', { id: later.id, text: 'exit 0\r', wait_ms: 0 });
  await expect(page.locator(`[role="tab"][data-session-id="${later.id}"]`)).toHaveCount(0);
  await expect(tab).toBeVisible();
  await expect(page.locator('.tab', { has: tab }).getByTestId('tab-pin')).toHaveAttribute('aria-pressed', 'true');

  // Pinned by hand, a running tab stays pinned across a reload too.
  const kept = await agent.call<{ id: string }>('terminal_create', { title: 'kept' });
  const keptTab = page.locator(`[role="tab"][data-session-id="${kept.id}"]`);
  await page.locator('.tab', { has: keptTab }).getByTestId('tab-pin').click();
  await page.reload();
  await expect(page.getByTestId('connection-status')).toHaveAttribute('data-state', 'connected');
  await expect(tab).toBeVisible();
  expect(await screenText(page, failed.id)).toMatch(/^build-broke$/m);
  await expect(page.locator('.tab', { has: tab }).getByTestId('tab-pin')).toHaveAttribute('aria-pressed', 'true');
  await expect(page.locator('.tab', { has: keptTab }).getByTestId('tab-pin')).toHaveAttribute('aria-pressed', 'true');
  await agent.call('terminal_send', { id: kept.id, text: 'exit 0\r', wait_ms: 0 });
  await expect(keptTab).toHaveAttribute('data-status', 'exited');
  // Pinned: it outlives the linger of the next tab to exit.
  const last = await agent.call<{ id: string }>('terminal_create', { title: 'last' });
  await agent.call('terminal_send', { id: last.id, text: 'exit 0\r', wait_ms: 0 });
  await expect(page.locator(`[role="tab"][data-session-id="${last.id}"]`)).toHaveCount(0);
  await expect(keptTab).toBeVisible();
});
