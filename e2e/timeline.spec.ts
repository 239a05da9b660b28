// The Timeline view, end to end, and issue 36's first "Done when": an agent's three commands (one failing),
// the developer's line in its shell and one in their own tab appear live, in order, failures marked; the
// agent's terminal_history lists its own four (the developer's line marked as theirs), another agent none;
// a click shows the command's tab.
import { AGENT_NAME, connectAgent, expect, expectScreen, keepScreenshot, terminalOf, test } from './fixtures.js';

interface Created { id: string; cwd: string }
interface Listed { id: string; terminal: string; command: string | null; cwd: string | null; actor: string; state: string; duration_ms: number | null; exit_code: number | null }

test('the Timeline lists the commands of every session live, in order, and a click shows the tab', async ({ panel: page, agent, server }) => {
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
  await expect(rows.locator('td:nth-child(2)')).toHaveText([`agent ${AGENT_NAME}`, `agent ${AGENT_NAME}`, `agent ${AGENT_NAME}`, 'you']);
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
  // All five, in the order they ran, each with how long it took.
  await expect(rows.locator('.timeline-command')).toHaveText(['echo first', 'ls /nonexistent-e2e', 'echo third', 'echo by-the-developer', 'echo in-my-tab']);
  await expect(rows.locator('td:nth-child(5)')).toHaveText(Array(5).fill(/^(\d+ ms|\d+\.\d s)$/));

  // The agent's own list: its four, the developer's line in its shell marked as theirs, not the developer's own tab.
  const { commands } = await agent.call<{ commands: Listed[] }>('terminal_history', {});
  expect(commands.map(({ command, terminal, cwd, actor, state, exit_code }) => ({ command, terminal, cwd, actor, state, exit_code }))).toEqual([
    { command: 'echo first', terminal: shell.id, cwd: shell.cwd, actor: AGENT_NAME, state: 'done', exit_code: 0 },
    { command: 'ls /nonexistent-e2e', terminal: shell.id, cwd: shell.cwd, actor: AGENT_NAME, state: 'done', exit_code: 2 },
    { command: 'echo third', terminal: shell.id, cwd: shell.cwd, actor: AGENT_NAME, state: 'done', exit_code: 0 },
    { command: 'echo by-the-developer', terminal: shell.id, cwd: shell.cwd, actor: 'developer', state: 'done', exit_code: 0 },
  ]);
  // Durations are the host's, from when it read the command's start mark to when it read its end (a 200 ms
  // sleep has read 199 ms on a loaded machine), so no bound is asserted: each done command has one.
  for (const command of commands) expect(command.duration_ms).toEqual(expect.any(Number));
  // Another agent sees none of them, and the first agent's command ids answer as unknown ones.
  const other = await connectAgent(server, 'other-agent');
  try {
    expect((await other.call<{ commands: Listed[] }>('terminal_history', {})).commands).toEqual([]);
    const read = await other.client.callTool({ name: 'terminal_history', arguments: { command_id: commands[0]!.id } });
    expect(read.isError).toBe(true);
    const search = await other.call<{ matches: unknown[] }>('terminal_history', { search: 'first|by-the-developer|in-my-tab' });
    expect(search.matches).toEqual([]);
  } finally {
    await other.client.close();
  }
  // A click on a row shows that command's tab.
  await rows.first().click();
  await expect(page.getByRole('tab', { name: `${AGENT_NAME} agent: work` })).toHaveAttribute('aria-selected', 'true');
});

test("a closed session's commands stay in the Timeline, marked closed, across a reload; the agent's close takes none back", async ({ panel: page, agent }) => {
  await page.getByTestId('toggle-timeline').click();
  const rows = page.getByTestId('timeline-row');
  const shell = await agent.call<Created>('terminal_create', { title: 'short-lived' });
  await agent.call('terminal_run', { id: shell.id, command: 'echo did-something' });
  await agent.call('terminal_run', { id: shell.id, command: '(exit 7)' });
  await expect(rows).toHaveCount(2);
  await expect(rows.first().getByTestId('timeline-replay')).toBeVisible();

  await agent.call('terminal_close', { id: shell.id });
  await expect(rows.locator('[data-testid="timeline-closed"]')).toHaveCount(2);
  for (const reloaded of [false, true]) {
    if (reloaded) {
      await page.reload();
      await expect(page.getByTestId('connection-status')).toHaveAttribute('data-state', 'connected');
      if (!(await page.getByTestId('timeline').isVisible())) await page.getByTestId('toggle-timeline').click();
    }
    await expect(rows.locator('.timeline-command')).toHaveText(['echo did-something', '(exit 7)']);
    await expect(rows.getByTestId('timeline-exit')).toHaveText(['0', '7']);
    await expect(rows.locator('td:nth-child(3)')).toHaveText([/^short-lived closed$/, /^short-lived closed$/]);
    await expect(rows.nth(1)).toHaveClass(/failed/);
    // Its output went with the session: nothing to replay or export.
    await expect(rows.getByTestId('timeline-replay')).toHaveCount(0);
  }
  await keepScreenshot(page, 'timeline-closed');
});

test("an agent that names itself as the developer is still shown, and filtered, as an agent", async ({ panel: page, server }) => {
  await page.getByTestId('toggle-timeline').click();
  const rows = page.getByTestId('timeline-row');
  // An MCP client chooses its name: "you" is the Timeline's word for the developer, "developer" the value of its filter.
  const theirs: string[] = [];
  for (const name of ['you', 'developer']) {
    const spoof = await connectAgent(server, name);
    try {
      const shell = await spoof.call<Created>('terminal_create', { title: `as-${name}` });
      theirs.push(shell.id);
      await spoof.call('terminal_run', { id: shell.id, command: `echo ran-by-${name}` });
    } finally {
      await spoof.client.close();
    }
  }
  await expect(rows).toHaveCount(2);
  await page.getByTestId('new-terminal').click();
  const own = page.getByRole('tab', { selected: true });
  for (const id of theirs) await expect(own).not.toHaveAttribute('data-session-id', id);
  const mine = (await own.getAttribute('data-session-id'))!;
  await expectScreen(page, mine, /^e2e#/m);
  await terminalOf(page, mine).click();
  await page.keyboard.type('echo mine');
  await page.keyboard.press('Enter');
  await expect(rows).toHaveCount(3);
  await expect(rows.locator('.timeline-command')).toHaveText(['echo ran-by-you', 'echo ran-by-developer', 'echo mine']);
  // Only the developer's row reads "you".
  await expect(rows.locator('td:nth-child(2)')).toHaveText(['agent you', 'agent developer', 'you']);
  // "You" lists the developer's line alone; each agent's name lists that agent's.
  await page.getByTestId('timeline-actor').selectOption({ label: 'You' });
  await expect(rows.locator('.timeline-command')).toHaveText(['echo mine']);
  await page.getByTestId('timeline-actor').selectOption({ label: 'developer' });
  await expect(rows.locator('.timeline-command')).toHaveText(['echo ran-by-developer']);
  await page.getByTestId('timeline-actor').selectOption({ label: 'Agents' });
  await expect(rows.locator('.timeline-command')).toHaveText(['echo ran-by-you', 'echo ran-by-developer']);
});

test("two agents of the same name, each with a shell of the same title, have rows and filter entries told apart by id", async ({ panel: page, server }) => {
  await page.getByTestId('toggle-timeline').click();
  const rows = page.getByTestId('timeline-row');
  const ids: string[] = [];
  const agents = [await connectAgent(server, 'claude-code'), await connectAgent(server, 'claude-code')];
  try {
    for (const [n, twin] of agents.entries()) {
      const shell = await twin.call<Created>('terminal_create', { title: 'build' });
      ids.push(shell.id);
      await twin.call('terminal_run', { id: shell.id, command: `echo twin-${n}` });
    }
    await expect(rows).toHaveCount(2);
    // The name and the title are the agents' own choice and alike; the session id, as `ptydeck ls` shows it, is not.
    const labels = ids.map((id) => `build · ${id.slice(0, 8)}`);
    await expect(rows.getByTestId('timeline-session-cell')).toHaveText(labels);
    await expect(page.getByTestId('timeline-session').locator('option')).toHaveText(['All sessions', ...labels]);
    await page.getByTestId('timeline-session').selectOption({ label: labels[1]! });
    await expect(rows.locator('.timeline-command')).toHaveText(['echo twin-1']);
  } finally {
    for (const twin of agents) await twin.client.close();
  }
});
