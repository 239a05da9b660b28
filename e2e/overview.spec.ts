// The overview's agent cards say what each shell is doing: a persistent shell
// back at its prompt is idle, with how its last command ended, never "running"
// under the title of a command that has finished.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, keepScreenshot, test } from './fixtures.js';

interface Run { id: string; outcome: string; exit_code: number | null }

test("an agent's shell at its prompt reads as idle with its last command's exit code, and as running only while a command runs", async ({ panel: page, agent }) => {
  const first = await agent.call<Run>('terminal_run', { command: 'ls /; false' });
  expect(first).toMatchObject({ outcome: 'completed', exit_code: 1 });
  const row = page.locator(`[data-testid="agent"] [data-testid="overview-session"][data-session-id="${first.id}"]`);
  const status = row.getByTestId('overview-session-status');
  await expect(row).toHaveAttribute('data-state', 'idle');
  await expect(status).toHaveText('idle · last exit 1');
  await expect(row).not.toContainText('running');
  // Its tab's dot says the same: a ring for a shell at its prompt, not the filled dot of a running one.
  const dot = page.locator(`[role="tab"][data-session-id="${first.id}"] [data-testid="tab-status"]`);
  await expect(dot).toHaveAttribute('data-state', 'idle');
  await keepScreenshot(page, 'overview-idle-shell');

  // A command still running when the call returns: the card says so.
  const slow = await agent.call<Run>('terminal_run', { id: first.id, command: 'sleep 30', timeout_ms: 200 });
  expect(slow.outcome).toBe('running');
  await expect(row).toHaveAttribute('data-state', 'running');
  await expect(status).toHaveText('running');
  await expect(dot).toHaveAttribute('data-state', 'running');
  await keepScreenshot(page, 'overview-running-shell');

  // Interrupted, the shell is back at its prompt with the interrupted command's code; a command that succeeds says 0.
  await agent.call('terminal_send', { id: first.id, keys: ['Ctrl-C'] });
  await expect(status).toHaveText('idle · last exit 130');
  await agent.call<Run>('terminal_run', { id: first.id, command: 'true' });
  await expect(status).toHaveText('idle · last exit 0');
});

test("a shell's processes toggle reads as a control that shows and hides the list; a working directory and a command line the agent chose are drawn with escapes", async ({ panel: page, agent }) => {
  // A directory whose name holds a right-to-left override, and a process whose argv[0] holds one (exec -a): each is the
  // agent's to choose, and drawn raw either reordered the rest of its row.
  const parent = mkdtempSync(join(tmpdir(), 'ptydeck-e2e-rlo-'));
  try {
    const cwd = join(parent, 'x\u202etxt.sh');
    mkdirSync(cwd);
    const created = await agent.call<{ id: string }>('terminal_create', { cwd });
    await agent.call<Run>('terminal_run', { id: created.id, command: `sleep 300 & (exec -a "sleep$(printf '\\xe2\\x80\\xae')evil" sleep 301) &` });
    const row = page.locator(`[data-testid="agent"] [data-testid="overview-session"][data-session-id="${created.id}"]`);
    await expect(row.locator('.session-cwd')).toHaveText(/x\\u202etxt\.sh$/);
    await expect(row.locator('.session-row')).toHaveAttribute('title', /x\\u202etxt\.sh/);
    const toggle = row.getByTestId('processes-toggle');
    // Not a bare "processes", which sat under the shell's title like a stray label.
    await expect(toggle).toHaveText('▸ Show processes');
    await expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await toggle.click();
    await expect(toggle).toHaveText('▾ Hide processes');
    await expect(toggle).toHaveAttribute('aria-expanded', 'true');
    await expect(row.getByTestId('process').filter({ hasText: 'sleep 300' })).toHaveCount(1);
    const disguised = row.getByTestId('process').filter({ hasText: 'sleep\\u202eevil' });
    await expect(disguised).toHaveCount(1);
    await expect(disguised.locator('.process-command')).not.toContainText('\u202e');
    await toggle.click();
    await expect(toggle).toHaveText('▸ Show processes');
    await expect(row.getByTestId('process-list')).toHaveCount(0);
    await agent.call('terminal_close', { id: created.id, force: true });
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
});

test("the overview's Connect an agent has a snippet for each agent the README lists", async ({ panel: page }) => {
  // The README's table: Claude Code, Codex, Cursor, opencode, Zed; it says the overview shows the same snippets.
  await expect(page.getByTestId('connect-snippet')).toHaveCount(5);
  const zed = page.locator('[data-testid="connect-snippet"][data-agent-kind="zed"]');
  await expect(zed).toContainText('settings.json');
  await expect(zed).toContainText('"context_servers"');
});
