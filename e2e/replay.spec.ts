// Issue 36's replay, in Chromium: a session's recording (asciicast v3) plays in asciinema's own player in the
// panel, a marker per command to jump between, with nothing typed at a password prompt in it; a session lost
// with a SIGKILLed host replays too.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { connectAgent, expect, expectScreen, keepScreenshot, launchServer, screenText, terminalOf, test, type Agent, type LaunchedServer } from './fixtures.js';

const SECRET = 'hunter2-e2e-SECRET';

/** The player's screen: its rows as text. */
function playerText(page: Page): Promise<string> {
  return page
    .getByTestId('replay-player')
    .locator('.ap-line')
    .evaluateAll((rows) => rows.map((row) => (row.textContent ?? '').replace(/\u00a0/g, ' ').trimEnd()).join('\n'));
}

async function agentScreen(agent: Agent, id: string): Promise<string> {
  return String((await agent.call<{ output: string }>('terminal_read', { id, mode: 'screen' })).output);
}

let launched: LaunchedServer | undefined;
let workspace: string | undefined;
test.afterEach(async () => {
  await launched?.dispose();
  launched = undefined;
  if (workspace) rmSync(workspace, { recursive: true, force: true });
  workspace = undefined;
});

test("a session that ran vim and a password prompt replays in asciinema's player, a marker per command, without the password", async ({ panel: page, agent }) => {
  // In a project directory of its own: vim writes its file there (a sandboxed shell's HOME is read-only, and so is a
  // working directory that is HOME).
  workspace = realpathSync(mkdtempSync(join(tmpdir(), 'ptydeck-e2e-replay-')));
  const { id } = await agent.call<{ id: string }>('terminal_create', { title: 'editing', cwd: workspace });
  // vim on the main screen (no alternate screen), so what it drew stays on the screen after it quits.
  await agent.call('terminal_run', { id, command: "vim -u NONE -i NONE -N -c 'set t_ti= t_te=' notes.txt", timeout_ms: 200 });
  // Vim is up once it drew its empty-buffer lines: its "notes.txt" [New] message is gone if the panel's
  // resize made it redraw.
  await expect.poll(() => agentScreen(agent, id)).toMatch(/^~\s*$/m);
  // Three lines down, so the text is still on the screen once the shell's next lines scroll it up.
  await agent.call('terminal_send', { id, text: 'i\r\r\rhello-from-vim', keys: ['Escape'] });
  await agent.call('terminal_send', { id, text: ':wq', keys: ['Enter'] });
  await agent.call('terminal_wait', { id, until: 'exit' });

  // The developer answers a password prompt in the agent's tab: with echo off, nothing of it is output.
  await agent.call('terminal_run', { id, command: "read -s -p 'Password: ' p", timeout_ms: 200 });
  await expect.poll(() => agentScreen(agent, id)).toMatch(/^Password: ?$/m);
  await terminalOf(page, id).click();
  await page.keyboard.type(SECRET);
  await page.keyboard.press('Enter');
  await agent.call('terminal_wait', { id, until: 'exit' });
  await agent.call('terminal_run', { id, command: 'echo "after-$((6*7)) ${#p}"' });
  await expectScreen(page, id, /^after-42 18$/m);

  // The Timeline's download: the asciicast v3 export, fetched by the page.
  await page.getByTestId('toggle-timeline').click();
  const rows = page.locator(`[data-testid="timeline-row"][data-command-id^="${id}:"]`);
  await expect(rows).toHaveCount(3);
  const [download] = await Promise.all([page.waitForEvent('download'), rows.first().getByRole('button', { name: 'Export recording' }).click()]);
  const cast = await readFile((await download.path())!, 'utf8');
  const events = cast.trim().split('\n').slice(1).map((line) => JSON.parse(line) as [number, string, string]);
  expect(JSON.parse(cast.split('\n')[0]!).version).toBe(3);
  expect(events.filter((event) => event[1] === 'm').map((event) => event[2])).toEqual([
    "vim -u NONE -i NONE -N -c 'set t_ti= t_te=' notes.txt",
    "read -s -p 'Password: ' p",
    'echo "after-$((6*7)) ${#p}"',
  ]);
  expect(cast).not.toContain(SECRET);
  expect(cast).not.toContain('hunter2');
  await page.getByTestId('toggle-timeline').click();

  // The replay, from the terminal's menu.
  await terminalOf(page, id).click({ button: 'right' });
  await page.getByRole('menuitem', { name: 'Replay' }).click();
  const replay = page.getByRole('dialog', { name: 'Replay of editing' });
  await expect(replay).toBeVisible();
  const where = page.getByTestId('replay-where');
  await expect(where).toHaveText('before the first of 3 commands');
  const next = page.getByTestId('replay-next');
  await next.click();
  await expect(where).toHaveText("command 1 of 3: vim -u NONE -i NONE -N -c 'set t_ti= t_te=' notes.txt");
  await next.click();
  await expect(where).toHaveText("command 2 of 3: read -s -p 'Password: ' p");
  // At the password prompt's marker: vim's screen as it left it (its text and its write message).
  await expect.poll(() => playerText(page)).toContain('hello-from-vim');
  expect(await playerText(page)).toMatch(/^~\n~\n[\s\S]*^"notes\.txt" .*written$/m);
  await next.click();
  await expect(where).toHaveText('command 3 of 3: echo "after-$((6*7)) ${#p}"');
  await expect.poll(() => playerText(page)).toContain('Password:');
  await keepScreenshot(page, 'replay-at-a-marker');

  // Past the last marker is the end: the session's own final screen, and no byte of the password.
  await next.click();
  await expect.poll(() => playerText(page)).toMatch(/^after-42 18$/m);
  const lines = (text: string) => text.split('\n').map((line) => line.trimEnd()).filter((line) => line !== '');
  expect(lines(await playerText(page))).toEqual(lines(await screenText(page, id)));
  expect(await playerText(page)).not.toContain(SECRET);

  // Play and pause, and another speed: a new player at the same place.
  await page.getByTestId('replay-speed').selectOption('4');
  await expect(where).toHaveText('command 3 of 3: echo "after-$((6*7)) ${#p}"');
  await page.keyboard.press('Escape');
  await expect(replay).toHaveCount(0);

  // From a Timeline row, played from the start: Play becomes Pause until it ends.
  await page.getByTestId('toggle-timeline').click();
  await rows.first().getByTestId('timeline-replay').click();
  await expect(replay).toBeVisible();
  await page.getByTestId('replay-play').click();
  await expect(page.getByTestId('replay-play')).toHaveText('Pause');
  await page.getByTestId('replay-close').click();
  await expect(replay).toHaveCount(0);
});

test('a session lost with a SIGKILLed host replays from its Timeline row', async ({ page }) => {
  launched = await launchServer({ persist: true });
  const first = launched.server;
  const agent = await connectAgent(first);
  const shell = await agent.call<{ id: string }>('terminal_create', { title: 'build' });
  await agent.call('terminal_run', { id: shell.id, command: 'echo lost-REPLAY-$((40+2))' });
  await first.persisted();
  await launched.kill();
  await agent.client.close().catch(() => {});

  const next = await launched.restart();
  await page.goto(await next.panelUrl());
  await expect(page.getByTestId('connection-status')).toHaveAttribute('data-state', 'connected');
  await expect(page.locator(`[role="tab"][data-session-id="${shell.id}"]`)).toHaveAttribute('data-status', 'lost');
  await page.getByTestId('toggle-timeline').click();
  const row = page.locator(`[data-testid="timeline-row"][data-command-id^="${shell.id}:"]`);
  await expect(row).toHaveCount(1);
  await row.getByTestId('timeline-replay').click();
  await expect(page.getByRole('dialog', { name: 'Replay of build' })).toBeVisible();
  await page.getByTestId('replay-next').click();
  await expect(page.getByTestId('replay-where')).toHaveText('command 1 of 1: echo lost-REPLAY-$((40+2))');
  await page.getByTestId('replay-next').click();
  await expect.poll(() => playerText(page)).toMatch(/^lost-REPLAY-42$/m);
});

test("an agent's hostile output replays as text: no clipboard write, no link, no markup, no window resize", async ({ panel: page, agent }) => {
  // Recording content is the agent's output. Watch what the page could be made to do with it.
  await page.evaluate(() => {
    const seen: string[] = ((window as unknown as { hostileSeen: string[] }).hostileSeen = []);
    const clipboard = navigator.clipboard as unknown as Record<string, unknown> | undefined;
    if (clipboard) for (const name of ['writeText', 'write']) clipboard[name] = async () => void seen.push(`clipboard.${name}`);
    const execCommand = document.execCommand.bind(document);
    document.execCommand = (command: string, ...rest: unknown[]) => (seen.push(`execCommand ${command}`), execCommand(command, ...(rest as [])));
    window.alert = () => void seen.push('alert');
    window.open = () => (seen.push('open'), null);
    window.addEventListener('resize', () => seen.push('resize'));
  });
  const { id } = await agent.call<{ id: string }>('terminal_create', { title: 'hostile' });
  // OSC 52 (set the clipboard), an OSC 8 link to javascript:, markup, a window resize report request (XTWINOPS).
  const command = [
    `printf '\\033]52;c;%s\\007' "$(printf 'rm -rf ~' | base64)"`,
    `printf '\\033]8;;javascript:alert(1)\\033\\\\click-me\\033]8;;\\033\\\\\\n'`,
    `printf '<img src=x onerror=alert(2)>\\n'`,
    `printf '\\033[8;9999;9999t\\033[3;0;0t\\033]0;<b>title</b>\\007'`,
    'echo hostile-$((40+2))',
  ].join('; ');
  await agent.call('terminal_run', { id, command });
  await terminalOf(page, id).click({ button: 'right' });
  await page.getByRole('menuitem', { name: 'Replay' }).click();
  await expect(page.getByRole('dialog', { name: /^Replay of / })).toBeVisible();
  await page.getByTestId('replay-next').click();
  await page.getByTestId('replay-next').click();
  await expect.poll(() => playerText(page)).toMatch(/^hostile-42$/m);
  const text = await playerText(page);
  expect(text).toContain('click-me');
  expect(text).toContain('<img src=x onerror=alert(2)>');
  const player = page.getByTestId('replay-player');
  expect(await player.locator('a, img, b').count()).toBe(0);
  await page.getByTestId('replay-play').click();
  await expect.poll(() => playerText(page)).toMatch(/^hostile-42$/m);
  expect(await page.evaluate(() => (window as unknown as { hostileSeen: string[] }).hostileSeen)).toEqual([]);
});

test("Play and Next command wait for the player's code: a click while it is on its way is not lost", async ({ panel: page, agent }) => {
  const { id } = await agent.call<{ id: string }>('terminal_create', { title: 'early' });
  await agent.call('terminal_run', { id, command: 'echo early-$((40+2))' });
  await expectScreen(page, id, /^early-42$/m);
  // The player's chunk is held until the recording is in the dialog and the buttons are looked at.
  let requested!: () => void;
  const asked = new Promise<void>((resolve) => (requested = resolve));
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route(/\/replay-player-[^/]*\.js$/, async (route) => {
    requested();
    await held;
    await route.continue();
  });
  await terminalOf(page, id).click({ button: 'right' });
  await page.getByRole('menuitem', { name: 'Replay' }).click();
  await asked;
  await expect(page.getByText('Loading the recording…')).toHaveCount(0);
  await expect(page.getByTestId('replay-next')).toBeDisabled();
  await expect(page.getByTestId('replay-play')).toBeDisabled();
  release();
  await page.getByTestId('replay-next').click();
  await expect(page.getByTestId('replay-where')).toHaveText('command 1 of 1: echo early-$((40+2))');
});
