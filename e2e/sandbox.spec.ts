// Issue 35 in the panel: an agent's shell in a bubblewrap sandbox (the e2e server's
// default, where bubblewrap works) carries a shield naming its profile, on its tab and on
// the overview's agent card, whose hover lists what it may write, what is hidden and the
// network; and it stays a terminal: vim and htop draw and redraw at a new size, the
// developer types into it and the agent reads it, Ctrl-Z, fg and Ctrl-C work.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { AGENT_NAME, expect, expectScreen, keepScreenshot, screenText, terminalOf, test, type E2eServer } from './fixtures.js';

interface Created { id: string; sandbox?: { profile: string; writable: string[]; hidden: string[]; network: boolean } }
interface Output { output: string; exit_code?: number | null; reason?: string }

const bwrapWorks = spawnSync('bwrap', ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-all', '--share-net', '--', 'true']).status === 0;
test.skip(!bwrapWorks, 'bubblewrap cannot build a sandbox on this machine (see `ptydeck sandbox check`)');

let workspace: string;
test.beforeEach(() => {
  // Under /tmp, which the sandbox replaces with its own: the workspace is bound in over it.
  workspace = realpathSync(mkdtempSync(join(tmpdir(), 'ptydeck-e2e-workspace-')));
});
test.afterEach(() => rmSync(workspace, { recursive: true, force: true }));

test("a sandboxed agent's tab and agent card carry a shield naming the profile; hovering lists what it may reach", async ({ panel: page, agent }) => {
  const made = await agent.call<Created>('terminal_create', { title: 'fenced', cwd: workspace });
  expect(made.sandbox).toMatchObject({ profile: 'workspace', network: true });
  const tab = page.locator('.tab', { has: page.getByRole('tab', { name: `${AGENT_NAME} agent: fenced` }) });
  const shield = tab.getByTestId('tab-sandbox');
  await expect(shield).toHaveAttribute('data-profile', 'workspace');
  await expect(shield).toHaveText('workspace');
  await shield.hover();
  const title = (await shield.getAttribute('title'))!;
  expect(title).toContain('Sandbox: workspace');
  expect(title).toMatch(new RegExp(`^Writable: ${workspace}, /tmp, `, 'm'));
  expect(title).toMatch(/^Hidden: .*\.local\/state|^Hidden: .*ptydeck-e2e-/m);
  expect(title).toMatch(/^Network: on/m);

  const offline = await agent.call<Created>('terminal_create', { title: 'offline', cwd: workspace, sandbox: 'workspace-offline' });
  const offlineShield = page.locator('.tab', { has: page.getByRole('tab', { name: `${AGENT_NAME} agent: offline` }) }).getByTestId('tab-sandbox');
  await expect(offlineShield).toHaveAttribute('data-profile', 'workspace-offline');
  expect(await offlineShield.getAttribute('title')).toMatch(/^Network: off/m);

  // The agent's card names each profile its shells run under; each shell's row too.
  const card = page.locator(`[data-testid="agent"]`);
  await expect(card.getByTestId('agent-sandbox')).toHaveText(['workspace', 'workspace-offline']);
  await expect(card.locator(`[data-testid="overview-session"][data-session-id="${offline.id}"]`).getByTestId('session-sandbox')).toHaveAttribute('data-profile', 'workspace-offline');

  // The developer's own tab runs as the developer: no shield.
  await page.keyboard.press('Control+Shift+T');
  const userTab = page.locator('.tab', { has: page.locator('[role="tab"][data-source="user"]') });
  await expect(userTab).toHaveCount(1);
  await expect(userTab.getByTestId('tab-sandbox')).toHaveCount(0);

  // How a developer checks it: the key is not there.
  const key = await agent.call<Output & { exit_code: number | null }>('terminal_run', { id: made.id, command: 'cat ~/.ssh/id_*' });
  expect(key.exit_code).not.toBe(0);
  await keepScreenshot(page, 'sandbox-shields');
});

test('vim and htop draw in a sandboxed shell and redraw when the panel resizes; the developer types into vim and the agent reads the file', async ({ panel: page, agent, server }) => {
  const made = await agent.call<Created>('terminal_create', { title: 'editor', cwd: workspace });
  const id = made.id;
  await expectScreen(page, id, /^e2e#/m);

  await agent.call('terminal_send', { id, text: 'vim -Nu NONE -c "set laststatus=2" notes.txt\r', wait_ms: 0 });
  await expectScreen(page, id, /^~\s*$/m);
  await expectStatusLineAt(page, id, /notes\.txt/, 2);

  // The panel grows: vim learns the new size (SIGWINCH through bubblewrap to the shell's foreground job) and redraws.
  const before = (await server.session(id))!.rows;
  await dragPanel(page, server, id, -160);
  expect((await server.session(id))!.rows).toBeGreaterThan(before);
  await expectStatusLineAt(page, id, /notes\.txt/, 2);

  // The developer types into the agent's vim in the browser.
  await terminalOf(page, id).click();
  await expect(terminalOf(page, id).locator('textarea')).toBeFocused();
  await page.keyboard.type('ityped by the developer');
  await page.keyboard.press('Escape');
  await page.keyboard.type(':wq');
  await page.keyboard.press('Enter');
  expect(await agent.call<Output>('terminal_wait', { id, until: 'exit', timeout_ms: 10_000 })).toMatchObject({ reason: 'exit', exit_code: 0 });
  expect((await agent.call<Output>('terminal_run', { id, command: 'cat notes.txt' })).output).toBe('typed by the developer\n');
  expect(readFileSync(join(workspace, 'notes.txt'), 'utf8')).toBe('typed by the developer\n');

  // htop reads the sandbox's own /proc; its key bar sits on the bottom row, at each size.
  await agent.call('terminal_send', { id, text: 'htop\r', wait_ms: 0 });
  await expectStatusLineAt(page, id, /F10\s*Quit/, 1);
  await keepScreenshot(page, 'sandbox-htop');
  const taller = (await server.session(id))!.rows;
  await dragPanel(page, server, id, 120);
  expect((await server.session(id))!.rows).toBeLessThan(taller);
  await expectStatusLineAt(page, id, /F10\s*Quit/, 1);
  await terminalOf(page, id).click();
  await page.keyboard.press('q');
  expect(await agent.call<Output>('terminal_wait', { id, until: 'exit', timeout_ms: 10_000 })).toMatchObject({ reason: 'exit', exit_code: 0 });
});

test('in a sandboxed shell the developer stops a job with Ctrl-Z, resumes it with fg and interrupts it with Ctrl-C', async ({ panel: page, agent }) => {
  const made = await agent.call<Created>('terminal_create', { title: 'jobs', cwd: workspace });
  const id = made.id;
  await expectScreen(page, id, /^e2e#/m);
  await terminalOf(page, id).click();
  await page.keyboard.type('sleep 4321');
  await page.keyboard.press('Enter');
  await expect.poll(() => sleeper()?.state, { message: 'sleep runs' }).toBe('S');
  await page.keyboard.press('Control+z');
  await expectScreen(page, id, /Stopped\s+sleep 4321/);
  expect(sleeper()?.state).toBe('T');
  await page.keyboard.type('fg');
  await page.keyboard.press('Enter');
  // Resumed and given the terminal again (the kernel says: not stopped, the terminal's foreground group).
  await expect.poll(() => sleeper()?.foreground && sleeper()?.state, { message: 'sleep runs in the foreground again' }).toBe('S');
  await page.keyboard.press('Control+c');
  const row = page.locator(`[data-testid="agent"] [data-testid="overview-session"][data-session-id="${id}"]`);
  await expect(row.getByTestId('overview-session-status')).toHaveText('idle · last exit 130');
  await expect.poll(() => sleeper(), { message: 'sleep is gone' }).toBeUndefined();
  expect((await agent.call<Output>('terminal_run', { id, command: 'echo still-here' })).output).toBe('still-here\n');
});

/** The test's `sleep 4321` as the kernel sees it from outside the sandbox: its state and whether it holds the terminal. */
function sleeper(): { state: string; foreground: boolean } | undefined {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'latin1') !== 'sleep\u00004321\u0000') continue;
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      const [state, , pgrp, , , tpgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return { state: state!, foreground: pgrp === tpgid };
    } catch {
      // Gone while we looked.
    }
  }
  return undefined;
}

/** Waits until the screen's row `fromBottom` rows above its end (1: the last) matches: a full-screen program drew for the current size. */
async function expectStatusLineAt(page: Page, id: string, pattern: RegExp, fromBottom: number): Promise<void> {
  await expect
    .poll(
      async () => {
        const rows = (await screenText(page, id)).split('\n');
        return pattern.test(rows[rows.length - fromBottom] ?? '');
      },
      { message: `row ${fromBottom} from the bottom shows ${pattern}` },
    )
    .toBe(true);
}

/** Drags the panel's edge by `dy` pixels and waits until the PTY has the size the terminal shows. */
async function dragPanel(page: Page, server: E2eServer, id: string, dy: number): Promise<void> {
  const handle = page.getByTestId('panel-resize-handle');
  const box = (await handle.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2 + dy, { steps: 5 });
  await page.mouse.up();
  type Sizes = { cols: number; rows: number; fitting: { cols: number; rows: number } | null };
  const screenSize = () => page.evaluate((session) => (window as unknown as { __ptydeck: { terminalSize(id: string): Sizes | null } }).__ptydeck.terminalSize(session), id);
  await expect
    .poll(async () => {
      const shown = await screenSize();
      const pty = (await server.session(id))!;
      return shown !== null && shown.fitting?.rows === shown.rows && pty.rows === shown.rows && pty.cols === shown.cols;
    }, { message: 'the PTY takes the size of the terminal on screen' })
    .toBe(true);
}
