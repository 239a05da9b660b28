// The Timeline view, end to end: an agent's commands and the developer's line in its shell appear live, in
// order, failures marked; a click shows the command's tab.
import { AGENT_NAME, expect, expectScreen, keepScreenshot, terminalOf, test } from './fixtures.js';

interface Created { id: string }

test('the Timeline lists the commands of every session live, in order, and a click shows the tab', async ({ panel: page, agent }) => {
  await page.getByTestId('toggle-timeline').click();
  const rows = page.getByTestId('timeline-row');
  await expect(page.getByTestId('timeline')).toContainText('No commands yet.');

  const shell = await agent.call<Created>('terminal_create', { title: 'work' });
  await agent.call('terminal_run', { id: shell.id, command: 'echo first' });
  await expect(rows).toHaveCount(1);
  await agent.call('terminal_run', { id: shell.id, command: 'ls /nonexistent-e2e' });
  await agent.call('terminal_run', { id: shell.id, command: 'echo third' });
  // The developer types a line into the agent's tab.
  await terminalOf(page, shell.id).click();
  await page.keyboard.type('echo by-the-developer');
  await page.keyboard.press('Enter');
  await expectScreen(page, shell.id, /^by-the-developer$/m);

  await expect(rows).toHaveCount(4);
  await expect(rows.locator('.timeline-command')).toHaveText(['echo first', 'ls /nonexistent-e2e', 'echo third', 'echo by-the-developer']);
  await expect(rows.locator('td:nth-child(2)')).toHaveText([AGENT_NAME, AGENT_NAME, AGENT_NAME, 'you']);
  await expect(rows.getByTestId('timeline-exit')).toHaveText(['0', '2', '0', '0']);
  await expect(rows.nth(1)).toHaveClass(/failed/);

  // Filters: failed only, then text.
  await page.getByTestId('timeline-failed').check();
  await expect(rows).toHaveCount(1);
  await page.getByTestId('timeline-failed').uncheck();
  await page.getByTestId('timeline-text').fill('/^echo (first|third)$/');
  await expect(rows).toHaveCount(2);
  await page.getByTestId('timeline-text').fill('');
  await keepScreenshot(page, 'timeline');

  // The developer's own bash tab has ptydeck's marks after their startup files: its commands are recorded as theirs.
  await page.getByTestId('new-terminal').click();
  const own = page.getByRole('tab', { selected: true });
  await expect(own).not.toHaveAttribute('data-session-id', shell.id);
  const mine = (await own.getAttribute('data-session-id'))!;
  await expectScreen(page, mine, /^e2e#/m);
  await terminalOf(page, mine).click();
  await page.keyboard.type('echo in-my-tab');
  await page.keyboard.press('Enter');
  await expectScreen(page, mine, /^in-my-tab$/m);
  await expect(rows).toHaveCount(5);
  await expect(rows.last().locator('.timeline-command')).toHaveText('echo in-my-tab');
  await expect(rows.last().locator('td:nth-child(2)')).toHaveText('you');
  // A click on a row shows that command's tab.
  await rows.first().click();
  await expect(page.getByRole('tab', { name: `${AGENT_NAME} agent: work` })).toHaveAttribute('aria-selected', 'true');
});
