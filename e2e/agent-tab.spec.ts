// The agent's side of the panel, end to end: an MCP client creates a shell, the
// panel opens on its tab streaming live, the developer types into it and the
// agent reads what was typed, and when the shell exits the tab shows the exit
// code, lingers, and the panel closes.
import { AGENT_NAME, expect, expectScreen, keepScreenshot, panelRegion, screenText, terminalOf, test } from './fixtures.js';

interface Created { id: string; state: string }
interface Output { output: string; state: string; exit_code?: number | null; process_exit_code?: number | null; reason?: string }

// Short enough to wait for, long enough to see the exit code before the tab goes.
test.use({ lingerMs: 3_000 });

test('an agent session opens the panel live, takes the developer\'s typing, and closes after its exit', async ({ panel: page, agent }) => {
  // At start-up, with no sessions, no terminal exists and the panel is closed.
  await expect(page.getByRole('tab')).toHaveCount(0);
  await expect(panelRegion(page)).toBeHidden();

  const created = await agent.call<Created>('terminal_create', { title: 'build' });
  const tab = page.getByRole('tab', { name: `${AGENT_NAME} agent: build` });
  // "Within a second": generous bounds on the condition, not a measured assertion.
  await expect(panelRegion(page)).toBeVisible({ timeout: 2_000 });
  await expect(tab).toHaveAttribute('aria-selected', 'true', { timeout: 2_000 });
  await expect(tab).toHaveAttribute('data-session-id', created.id);
  await expect(tab.getByTestId('tab-agent-badge')).toHaveText(AGENT_NAME);

  // Live output: what the agent runs shows in the tab while the agent is still connected.
  const run = await agent.call<Output>('terminal_run', { id: created.id, command: 'echo agent-says-$((6*7))' });
  expect(run.output).toContain('agent-says-42');
  await expectScreen(page, created.id, /^agent-says-42$/m, 2_000);

  // The developer clicks into the agent's terminal and types; the panel says whose shell it is.
  await terminalOf(page, created.id).click();
  await expect(terminalOf(page, created.id).locator('textarea')).toBeFocused();
  await expect(page.getByTestId('typing-banner')).toContainText(AGENT_NAME);
  await expect(tab.getByTestId('tab-typing')).toBeVisible();
  await page.keyboard.type('echo typed-by-user');
  await page.keyboard.press('Enter');
  await expectScreen(page, created.id, /^typed-by-user$/m);

  // The agent reads the developer's command and its output.
  let seen = '';
  await expect
    .poll(
      async () => {
        const read = await agent.call<Output>('terminal_read', { id: created.id, mode: 'new', wait_ms: 1_000 });
        seen += read.output;
        return seen;
      },
      { message: 'terminal_read returns what the developer typed' },
    )
    .toMatch(/^typed-by-user\s*$/m);
  await keepScreenshot(page, 'agent-tab-typed-by-user');

  // The agent's shell exits with a code; the tab shows it, then lingers and goes, and the panel with it.
  await agent.call('terminal_send', { id: created.id, text: 'exit 3\r', wait_ms: 0 });
  const waited = await agent.call<Output>('terminal_wait', { id: created.id, until: 'exit', timeout_ms: 10_000 });
  expect(waited).toMatchObject({ state: 'exited', process_exit_code: 3 });
  await expect(tab).toHaveAttribute('data-status', 'exited');
  await expect(tab.getByTestId('tab-exit-code')).toHaveAttribute('data-exit-code', '3');
  await expect(tab.getByTestId('tab-exit-code')).toHaveText('exit 3');
  // While it lingers, its banner no longer says the agent sees what is typed: nothing reads it.
  await expect(page.getByTestId('agent-banner')).toHaveText(`${AGENT_NAME}'s shell has exited: what you type goes nowhere.`);
  await expect(tab).toHaveCount(0, { timeout: 15_000 });
  await expect(panelRegion(page)).toBeHidden();
});

test('the panel is an accessible region whose tabs say which shells are an agent\'s', async ({ panel: page, agent }) => {
  const created = await agent.call<Created>('terminal_create', { title: 'tests' });
  const region = panelRegion(page);
  await expect(region).toBeVisible();
  const tablist = region.getByRole('tablist');
  await expect(tablist).toBeVisible();
  const agentTab = tablist.getByRole('tab', { name: `${AGENT_NAME} agent: tests` });
  await expect(agentTab).toHaveAttribute('aria-selected', 'true');

  // The developer's own terminal: a tab whose name does not claim an agent.
  await page.getByTestId('panel-new-terminal').click();
  const tabs = tablist.getByRole('tab');
  await expect(tabs).toHaveCount(2);
  const userTab = tablist.locator('[role="tab"][data-source="user"]');
  await expect(userTab).toHaveAttribute('aria-selected', 'true');
  await expect(agentTab).toHaveAttribute('aria-selected', 'false');
  const userName = await userTab.getAttribute('aria-label');
  expect(userName).toBeTruthy();
  expect(userName).not.toMatch(/agent/i);
  await expect(tablist.getByRole('tab', { name: /agent/ })).toHaveCount(1);

  // Exactly one tab is selected at a time, and its tabpanel is labelled by it.
  await agentTab.click();
  await expect(agentTab).toHaveAttribute('aria-selected', 'true');
  await expect(userTab).toHaveAttribute('aria-selected', 'false');
  await expect(tablist.getByRole('tab', { selected: true })).toHaveCount(1);
  const panelId = await agentTab.getAttribute('aria-controls');
  const tabpanel = page.locator(`#${panelId}`);
  await expect(tabpanel).toHaveAttribute('role', 'tabpanel');
  await expect(tabpanel).toHaveAttribute('data-session-id', created.id);
  await expect(page.getByRole('tabpanel', { name: `${AGENT_NAME} agent: tests` })).toHaveCount(1);
});

test('output streams to the tab while the agent\'s command is still running', async ({ panel: page, agent }) => {
  // terminal_run without an id: the agent's usual first call opens a new shell, and the panel with it.
  const first = await agent.call<Output & { id: string }>('terminal_run', { command: 'echo new-shell-$((2*21))' });
  expect(first.output).toContain('new-shell-42');
  const tab = page.locator(`[role="tab"][data-session-id="${first.id}"]`);
  await expect(tab).toHaveAttribute('aria-selected', 'true');
  await expectScreen(page, first.id, /^new-shell-42$/m);

  // A command that prints, then blocks on input: its first line must show while it still runs.
  await agent.call('terminal_send', { id: first.id, text: 'echo waiting-for-$((1+1)); read -r answer; echo got-$answer\r', wait_ms: 0 });
  await expectScreen(page, first.id, /^waiting-for-2$/m);
  expect(await screenText(page, first.id)).not.toMatch(/^got-/m);
  // The developer answers in the tab; the agent's command finishes with it.
  await terminalOf(page, first.id).click();
  await page.keyboard.type('from-the-developer');
  await page.keyboard.press('Enter');
  await expectScreen(page, first.id, /^got-from-the-developer$/m);
  const waited = await agent.call<Output>('terminal_wait', { id: first.id, until: 'pattern', pattern: '^got-from-the-developer$', timeout_ms: 10_000 });
  expect(waited.reason).toBe('pattern');
});

test('multi-byte output larger than a frame renders intact', async ({ panel: page, agent }) => {
  const created = await agent.call<{ id: string }>('terminal_create', { title: 'utf8' });
  // ~90 KB of two- and three-byte characters: more than one 64 KiB output frame, so
  // characters are split across frames (and PTY reads) somewhere.
  await agent.call('terminal_run', {
    id: created.id,
    command: 'for i in $(seq 1 2500); do echo "ünïcödé-日本語-$i"; done',
  });
  await expectScreen(page, created.id, /^ünïcödé-日本語-2500$/m);
  const buffer = await page.evaluate(
    (id) => (window as unknown as { __ptydeck: { terminalText(id: string): string | null } }).__ptydeck.terminalText(id) ?? '',
    created.id,
  );
  expect(buffer).not.toContain('\ufffd');
  const lines = buffer.split('\n').filter((line) => line.startsWith('ünïcödé-'));
  expect(lines.length).toBeGreaterThan(100);
  for (const line of lines) expect(line).toMatch(/^ünïcödé-日本語-\d+$/);
});
