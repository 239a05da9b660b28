// "Needs you": when an agent's command waits for an answer, its tab says so (to
// the eye and to a screen reader), the overview lists it first, and a developer
// who is elsewhere gets one desktop notification per prompt that brings them to
// the tab. Answering in the tab clears it all.
import type { Page } from '@playwright/test';
import { AGENT_NAME, activeSessionId, expect, keepScreenshot, terminalOf, test, type Agent } from './fixtures.js';
import { clickNotification, notifications, pretendFocus, recordNotifications } from './notification-recorder.js';

const PROMPT_COMMAND = "printf 'Continue? [y/N] '; read x";

/** An agent's shell titled `make build` whose command now waits for an answer. */
async function waitingShell(agent: Agent): Promise<string> {
  const { id } = await agent.call<{ id: string }>('terminal_create', { title: 'make build' });
  await ask(agent, id);
  return id;
}

async function ask(agent: Agent, id: string): Promise<void> {
  const run = await agent.call<{ outcome: string }>('terminal_run', { id, command: PROMPT_COMMAND });
  expect(run.outcome).toBe('waiting_for_input');
}

const tabOf = (page: Page, id: string) => page.locator(`[role="tab"][data-session-id="${id}"]`);

test('the tab and the overview say an agent waits for input, until the developer answers in the tab', async ({ panel: page, agent }) => {
  const id = await waitingShell(agent);
  const tab = tabOf(page, id);
  await expect(tab).toHaveAccessibleName(`${AGENT_NAME} agent: make build, waiting for input`);
  await expect(tab.getByTestId('tab-needs-input')).toBeVisible();
  await expect(page.getByRole('tab', { name: /waiting for input/ })).toHaveCount(1);

  // The overview lists it first, with the prompt, and a click brings the tab forward.
  const waiting = page.getByTestId('waiting-session');
  await expect(waiting).toHaveCount(1);
  await expect(waiting.getByTestId('waiting-prompt')).toHaveText('Continue? [y/N]');
  await expect(page.getByTestId('overview').locator('section').first()).toHaveAttribute('data-testid', 'waiting');
  await keepScreenshot(page, 'needs-input-badge-and-overview');

  await page.getByTestId('new-terminal').click();
  // The new tab is selected once the server answers the request for it.
  await expect.poll(() => activeSessionId(page)).not.toBe(id);
  await waiting.getByRole('button').click();
  await expect(tab).toHaveAttribute('aria-selected', 'true');
  await expect(terminalOf(page, id).locator('textarea')).toBeFocused();

  // The developer answers in the tab: output moves on, the core clears the attention.
  await page.keyboard.type('y');
  await page.keyboard.press('Enter');
  await expect(tab.getByTestId('tab-needs-input')).toHaveCount(0);
  await expect(tab).toHaveAccessibleName(`${AGENT_NAME} agent: make build`);
  await expect(waiting).toHaveCount(0);
});

test('one desktop notification per prompt while the window is elsewhere; clicking it brings the tab and its terminal forward', async ({
  page,
  server,
  agent,
  context,
}) => {
  await context.grantPermissions(['notifications']);
  await recordNotifications(page, 'granted');
  await page.goto(await server.panelUrl());
  await expect(page.getByTestId('connection-status')).toHaveAttribute('data-state', 'connected');
  await expect(page.getByTestId('notify-input')).toBeChecked();

  // Looked at: the badge is enough.
  const id = await waitingShell(agent);
  await expect(tabOf(page, id).getByTestId('tab-needs-input')).toBeVisible();
  // A later prompt's notification proves this one was judged and not merely not yet shown.
  await agent.call('terminal_send', { id, text: 'y\r', wait_ms: 0 });
  await expect(tabOf(page, id).getByTestId('tab-needs-input')).toHaveCount(0);

  // Elsewhere: one notification for the next prompt, naming the agent and the prompt.
  await pretendFocus(page, false);
  await ask(agent, id);
  await expect.poll(() => notifications(page)).toHaveLength(1);
  const [first] = await notifications(page);
  expect(first).toMatchObject({ title: `${AGENT_NAME} needs input`, body: 'make build: Continue? [y/N]' });

  // More updates of the same session (the panel's resize of a new shell, another shell's creation) are the same prompt.
  const other = await agent.call<{ id: string }>('terminal_create', { title: 'other' });
  await expect(tabOf(page, other.id)).toBeVisible();
  await page.getByTestId('new-terminal').click();
  await expect.poll(async () => [id, other.id].includes(await activeSessionId(page))).toBe(false);
  const own = await activeSessionId(page);
  await expect(terminalOf(page, own).locator('textarea')).toBeFocused();
  // A second prompt, in the other shell: exactly one more.
  await ask(agent, other.id);
  await expect.poll(() => notifications(page)).toHaveLength(2);
  const all = await notifications(page);
  expect(all[1]).toMatchObject({ title: `${AGENT_NAME} needs input`, body: 'other: Continue? [y/N]' });
  expect(new Set(all.map((n) => n.tag)).size).toBe(2);

  // Clicking the first brings its tab forward, with the cursor in its terminal.
  expect(await activeSessionId(page)).toBe(own);
  await clickNotification(page, 0);
  await expect(tabOf(page, id)).toHaveAttribute('aria-selected', 'true');
  await expect(terminalOf(page, id).locator('textarea')).toBeFocused();
  expect(await page.evaluate(() => (window as unknown as { shownNotifications: Array<{ closed: boolean }> }).shownNotifications[0]!.closed)).toBe(true);
  await expect.poll(() => notifications(page)).toHaveLength(2);
});

test('the browser is asked for permission only from the overview control, and turning notifications off is kept', async ({ page, server, agent }) => {
  await recordNotifications(page, 'default');
  await page.goto(await server.panelUrl());
  await expect(page.getByTestId('connection-status')).toHaveAttribute('data-state', 'connected');
  const control = page.getByRole('checkbox', { name: 'Notify me when an agent needs input' });
  await expect(control).not.toBeChecked();
  expect(await page.evaluate(() => (window as unknown as { permissionRequests: number }).permissionRequests)).toBe(0);

  await control.click();
  await expect(control).toBeChecked();
  expect(await page.evaluate(() => (window as unknown as { permissionRequests: number }).permissionRequests)).toBe(1);
  await keepScreenshot(page, 'notification-settings');

  // Off, and still off after a reload: a prompt while elsewhere shows nothing.
  await control.click();
  await expect(control).not.toBeChecked();
  await page.reload();
  await expect(page.getByTestId('connection-status')).toHaveAttribute('data-state', 'connected');
  await expect(control).not.toBeChecked();
  await pretendFocus(page, false);
  const id = await waitingShell(agent);
  await expect(tabOf(page, id).getByTestId('tab-needs-input')).toBeVisible();
  await agent.call('terminal_send', { id, text: 'y\r', wait_ms: 0 });
  await expect(tabOf(page, id).getByTestId('tab-needs-input')).toHaveCount(0);
  expect(await notifications(page)).toEqual([]);

  // On again (the browser allowed it already: no second question), the next prompt notifies.
  await control.click();
  await expect(control).toBeChecked();
  await ask(agent, id);
  await expect.poll(() => notifications(page)).toHaveLength(1);
  expect(await page.evaluate(() => (window as unknown as { permissionRequests: number }).permissionRequests)).toBe(0);
});
