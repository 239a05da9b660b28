// Issue 36.4, end to end: a gutter mark per command (success, failure, running), Ctrl+Up/Down between
// commands without a byte to the shell, a command's menu (copy output, copy command, rerun in the developer's
// own tab only, export), and a Timeline click that scrolls the tab to its command.
import type { Page } from '@playwright/test';
import { expect, expectScreen, keepScreenshot, openUserTerminal, terminalOf, test } from './fixtures.js';

test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

interface Marks { viewportY: number; marks: { id: string; line: number; state: string }[] }

const marksOf = (page: Page, id: string) =>
  page.evaluate((sessionId) => (window as unknown as { __ptydeck: { commandMarks(id: string): Marks | null } }).__ptydeck.commandMarks(sessionId), id) as Promise<Marks>;
const statesOf = async (page: Page, id: string) => (await marksOf(page, id)).marks.map((mark) => mark.state);
const readClipboard = (page: Page) => page.evaluate(() => navigator.clipboard.readText());

async function run(page: Page, command: string): Promise<void> {
  await page.keyboard.type(command);
  await page.keyboard.press('Enter');
}

/** Clicks a command's gutter mark (scrolled into view first, as a mark is drawn only while its row shows). */
async function openMenu(page: Page, id: string, commandId: string) {
  const mark = terminalOf(page, id).locator(`.command-mark[data-command-id="${commandId}"]`);
  await mark.click();
  const menu = page.getByTestId('command-menu');
  await expect(menu).toBeVisible();
  return menu;
}

test('marks show how each command ended; Ctrl+Up/Down move between them and send nothing; the menu copies and reruns', async ({ panel: page }) => {
  const id = await openUserTerminal(page);
  // Each after the one before ended: keys typed while a command runs are echoed into its output.
  await run(page, 'seq 1 50');
  await expect.poll(() => statesOf(page, id)).toEqual(['success']);
  await run(page, 'seq 51 100; false');
  await expect.poll(() => statesOf(page, id)).toEqual(['success', 'failed']);
  await run(page, 'seq 101 150');
  await expect.poll(() => statesOf(page, id)).toEqual(['success', 'failed', 'success']);
  // A command that is still running: cat, which shows any byte it reads (escapes as ^[).
  await run(page, 'cat -v');
  await expect.poll(() => statesOf(page, id)).toEqual(['success', 'failed', 'success', 'running']);
  const [first, failed, third] = (await marksOf(page, id)).marks;

  // Up: cat's line (the last page: the view stays at the bottom), then the third command's, then the second's.
  await page.keyboard.press('Control+ArrowUp');
  await page.keyboard.press('Control+ArrowUp');
  await expect.poll(async () => (await marksOf(page, id)).viewportY).toBe(third!.line);
  // A mark is drawn while its row shows.
  await expect(terminalOf(page, id).locator(`.command-mark[data-command-id="${third!.id}"]`)).toHaveAttribute('data-state', 'success');
  await page.keyboard.press('Control+ArrowUp');
  await expect.poll(async () => (await marksOf(page, id)).viewportY).toBe(failed!.line);
  await expect(terminalOf(page, id).locator(`.command-mark[data-command-id="${failed!.id}"]`)).toHaveAttribute('data-state', 'failed');
  await page.keyboard.press('Control+ArrowUp');
  await expect.poll(async () => (await marksOf(page, id)).viewportY).toBe(first!.line);
  await page.keyboard.press('Control+ArrowDown');
  await expect.poll(async () => (await marksOf(page, id)).viewportY).toBe(failed!.line);

  // None of those keys reached cat: the line it reads back holds only what is typed next.
  await run(page, 'typed');
  await expectScreen(page, id, /^typed\ntyped$/m);
  expect(await page.evaluate((sessionId) => (window as unknown as { __ptydeck: { terminalText(id: string): string } }).__ptydeck.terminalText(sessionId), id)).not.toMatch(/\^\[/);
  await page.keyboard.press('Control+C');
  await expect.poll(() => statesOf(page, id)).toEqual(['success', 'failed', 'success', 'failed']);

  // Copy output: exactly the second command's output.
  await page.keyboard.press('Control+ArrowUp');
  await page.keyboard.press('Control+ArrowUp');
  await page.keyboard.press('Control+ArrowUp');
  await expect.poll(async () => (await marksOf(page, id)).viewportY).toBe(failed!.line);
  let menu = await openMenu(page, id, failed!.id);
  await expect(menu.getByRole('menuitem')).toHaveText(['Copy output', 'Copy command', 'Rerun']);
  await keepScreenshot(page, 'command-menu');
  await menu.getByRole('menuitem', { name: 'Copy output' }).click();
  const expected = Array.from({ length: 50 }, (_, i) => String(51 + i)).join('\n');
  await expect.poll(() => readClipboard(page)).toBe(expected);
  // The keyboard went back to the terminal; the menu key opens the menu of the command jumped to.
  await expect(terminalOf(page, id).locator('textarea')).toBeFocused();
  await page.keyboard.press('Shift+F10');
  menu = page.getByTestId('command-menu');
  await expect(menu.getByRole('menuitem', { name: 'Copy output' })).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await expect.poll(() => readClipboard(page)).toBe('seq 51 100; false');

  // Rerun, in the developer's own tab: the line runs again, a command of its own.
  await page.keyboard.press('Control+ArrowUp');
  await expect.poll(async () => (await marksOf(page, id)).viewportY).toBe(first!.line);
  menu = await openMenu(page, id, first!.id);
  await menu.getByRole('menuitem', { name: 'Rerun' }).click();
  await expect.poll(() => statesOf(page, id)).toEqual(['success', 'failed', 'success', 'failed', 'success']);
  await expectScreen(page, id, /^e2e# seq 1 50\n1\n2\n/m);
});

test('an agent\'s tab: marks and the menu without Rerun, export from the terminal menu, and a Timeline click scrolls to the command', async ({ panel: page, agent }) => {
  const shell = await agent.call<{ id: string }>('terminal_create', { title: 'work' });
  // Its screen first: the panel follows the session from here, so the commands below are all parsed in it.
  await expectScreen(page, shell.id, /^e2e#/m);
  await agent.call('terminal_run', { id: shell.id, command: 'seq 1 80' });
  await agent.call('terminal_run', { id: shell.id, command: 'ls /nonexistent-gutter' });
  await expect.poll(() => statesOf(page, shell.id)).toEqual(['success', 'failed']);
  const [first, failed] = (await marksOf(page, shell.id)).marks;

  await page.getByRole('tab', { name: /work/ }).click();
  await terminalOf(page, shell.id).click();
  const menu = await openMenu(page, shell.id, failed!.id);
  await expect(menu.getByRole('menuitem')).toHaveText(['Copy output', 'Copy command']);
  await menu.getByRole('menuitem', { name: 'Copy output' }).click();
  await expect.poll(() => readClipboard(page)).toMatch(/^ls: cannot access '\/nonexistent-gutter': No such file or directory$/);

  // The recording, from the terminal's own context menu.
  await terminalOf(page, shell.id).click({ button: 'right' });
  const download = page.waitForEvent('download');
  await page.getByRole('menu', { name: 'Terminal' }).getByRole('menuitem', { name: 'Export recording' }).click();
  expect((await download).suggestedFilename()).toMatch(/^ptydeck-.*\.cast$/);

  // The Timeline: a click on the first command scrolls its tab there.
  await page.getByTestId('new-terminal').click();
  await expect(page.getByRole('tab', { selected: true })).not.toHaveAttribute('data-session-id', shell.id);
  await page.getByTestId('toggle-timeline').click();
  await page.locator(`[data-testid="timeline-row"][data-command-id="${first!.id}"]`).click();
  await expect(page.getByRole('tab', { name: /work/ })).toHaveAttribute('aria-selected', 'true');
  await expect.poll(async () => (await marksOf(page, shell.id)).viewportY).toBe(first!.line);
});

test('after a page reload the commands from before it have their marks back: Ctrl+Up/Down and Copy output work on them', async ({ panel: page, agent }) => {
  const id = await openUserTerminal(page);
  await run(page, 'seq 1 40');
  await expect.poll(() => statesOf(page, id)).toEqual(['success']);
  await run(page, 'seq 41 80; false');
  await expect.poll(() => statesOf(page, id)).toEqual(['success', 'failed']);
  await run(page, 'seq 81 120');
  await expect.poll(() => statesOf(page, id)).toEqual(['success', 'failed', 'success']);
  // An agent's tab in the background: after the reload it is restored only when first shown.
  const shell = await agent.call<{ id: string }>('terminal_create', { title: 'unseen' });
  await agent.call('terminal_run', { id: shell.id, command: 'echo unseen-$((6*7))' });
  await agent.call('terminal_run', { id: shell.id, command: 'ls /nonexistent-unseen' });
  const before = (await marksOf(page, id)).marks;

  await page.reload();
  await expect(page.getByTestId('connection-status')).toHaveAttribute('data-state', 'connected');
  await expectScreen(page, id, /^120$/m);
  // The same commands, on the same rows (the screen is restored with its scrollback), from the restore's marks.
  await expect.poll(async () => (await marksOf(page, id)).marks).toEqual(before);
  const [first, failed, third] = before;

  await terminalOf(page, id).click();
  await page.keyboard.press('Control+ArrowUp');
  await expect.poll(async () => (await marksOf(page, id)).viewportY).toBe(third!.line);
  await page.keyboard.press('Control+ArrowUp');
  await expect.poll(async () => (await marksOf(page, id)).viewportY).toBe(failed!.line);
  await page.keyboard.press('Control+ArrowUp');
  await expect.poll(async () => (await marksOf(page, id)).viewportY).toBe(first!.line);
  await page.keyboard.press('Control+ArrowDown');
  await expect.poll(async () => (await marksOf(page, id)).viewportY).toBe(failed!.line);
  await expect(terminalOf(page, id).locator(`.command-mark[data-command-id="${failed!.id}"]`)).toHaveAttribute('data-state', 'failed');
  const menu = await openMenu(page, id, failed!.id);
  await menu.getByRole('menuitem', { name: 'Copy output' }).click();
  await expect.poll(() => readClipboard(page)).toBe(Array.from({ length: 40 }, (_, i) => String(41 + i)).join('\n'));

  // A command run after the reload is marked as it is parsed, after the restored ones.
  await run(page, 'seq 121 130');
  await expect.poll(() => statesOf(page, id)).toEqual(['success', 'failed', 'success', 'success']);

  // The agent's tab, shown now: its commands are marked, and their output copies.
  await page.getByRole('tab', { name: /unseen/ }).click();
  await expectScreen(page, shell.id, /^unseen-42$/m);
  await expect.poll(() => statesOf(page, shell.id)).toEqual(['success', 'failed']);
  const [, lsFailed] = (await marksOf(page, shell.id)).marks;
  await terminalOf(page, shell.id).click();
  const agentMenu = await openMenu(page, shell.id, lsFailed!.id);
  await agentMenu.getByRole('menuitem', { name: 'Copy output' }).click();
  await expect.poll(() => readClipboard(page)).toMatch(/^ls: cannot access '\/nonexistent-unseen': No such file or directory$/);
});
