// Issue 32.2: copy and paste in the panel's terminals with the keys a terminal user expects
// (Ctrl+Shift+C / Ctrl+Shift+V, Ctrl+C with a selection, Ctrl+V) and a context menu, while
// Ctrl+C without a selection stays the shell's interrupt and pastes stay bracketed.
// terminal-clipboard-windowed.spec.ts presses the same keys as real X key events in a
// windowed Chromium, where the browser's own shortcuts could take them first.
import type { Page } from '@playwright/test';
import { expect, expectScreen, openUserTerminal, terminalOf, test } from './fixtures.js';

test.use({ permissions: ['clipboard-read', 'clipboard-write'] });

const readClipboard = (page: Page) => page.evaluate(() => navigator.clipboard.readText());
const writeClipboard = (page: Page, text: string) => page.evaluate((value) => navigator.clipboard.writeText(value), text);

async function run(page: Page, command: string): Promise<void> {
  await page.keyboard.type(command);
  await page.keyboard.press('Enter');
}

async function selectAllFromMenu(page: Page, id: string): Promise<void> {
  await terminalOf(page, id).click({ button: 'right' });
  await page.getByRole('menu', { name: 'Terminal' }).getByRole('menuitem', { name: 'Select all' }).click();
}

test('Ctrl+C copies a selection without interrupting, and interrupts without one; Ctrl+Shift+C copies', async ({ panel: page }) => {
  const id = await openUserTerminal(page);
  await run(page, 'echo copy-me-$((6*7))');
  await expectScreen(page, id, /^copy-me-42$/m);
  // A foreground cat: a ^C reaching the shell would end it.
  await run(page, 'cat');

  await selectAllFromMenu(page, id);
  await expect(terminalOf(page, id).locator('textarea')).toBeFocused();
  await page.keyboard.press('Control+C');
  await expect.poll(() => readClipboard(page)).toContain('copy-me-42');
  // cat still runs: it echoes the line back (the terminal's echo, then cat's).
  await run(page, 'still-reading');
  await expectScreen(page, id, /^still-reading\nstill-reading$/m);

  // The selection went with the copy: the next Ctrl+C is the interrupt again.
  await page.keyboard.press('Control+C');
  await expectScreen(page, id, /^\^C\ne2e#/m);
  await run(page, 'echo cat-ended-$?');
  await expectScreen(page, id, /^cat-ended-130$/m);

  await writeClipboard(page, 'nothing-yet');
  await selectAllFromMenu(page, id);
  await page.keyboard.press('Control+Shift+C');
  await expect.poll(() => readClipboard(page)).toContain('cat-ended-130');
  // Nothing reached the shell: no ^C, no C typed at the prompt, which holds just what came next.
  await run(page, 'echo after-copy');
  await expectScreen(page, id, /^cat-ended-130\ne2e# echo after-copy\nafter-copy$/m);
});

test('Ctrl+V and Ctrl+Shift+V paste the clipboard, bracketed when the program asked for it', async ({ panel: page }) => {
  const id = await openUserTerminal(page);
  // The program turns bracketed paste on, then shows the bytes it reads, escapes made visible. The terminal has
  // the mode once it drew the line printed after it: a paste before that went in unbracketed.
  await run(page, "printf '\\e[?2004h'; echo paste-$((6*7)); cat -v");
  await expectScreen(page, id, /^paste-42$/m);
  await writeClipboard(page, 'pasted-by-ctrl-v');
  await page.keyboard.press('Control+V');
  await page.keyboard.press('Enter');
  await expectScreen(page, id, /^\^\[\[200~pasted-by-ctrl-v\^\[\[201~$/m);
  await writeClipboard(page, 'pasted-by-ctrl-shift-v');
  await page.keyboard.press('Control+Shift+V');
  await page.keyboard.press('Enter');
  await expectScreen(page, id, /^\^\[\[200~pasted-by-ctrl-shift-v\^\[\[201~$/m);
  // No ^V (a literal-next for the shell) went through.
  expect(await page.evaluate(() => document.querySelector('.xterm-rows')?.textContent ?? '')).not.toContain('^V');
  await page.keyboard.press('Control+C');
  await expectScreen(page, id, /^\^C\ne2e#/m);
});

test('the context menu copies, pastes and selects all, and gives the keyboard back to the terminal', async ({ panel: page }) => {
  const id = await openUserTerminal(page);
  await run(page, 'echo menu-copy-$((3*3))');
  await expectScreen(page, id, /^menu-copy-9$/m);

  await terminalOf(page, id).click({ button: 'right' });
  const menu = page.getByRole('menu', { name: 'Terminal' });
  await expect(menu.getByRole('menuitem')).toHaveText([/^Copy/, /^Paste/, /^Select all/, /^Export recording/, /^Replay/]);
  // Nothing selected yet: nothing to copy.
  await expect(menu.getByRole('menuitem', { name: /^Copy/ })).toBeDisabled();
  await page.keyboard.press('Escape');
  await expect(menu).toHaveCount(0);
  await expect(terminalOf(page, id).locator('textarea')).toBeFocused();

  await selectAllFromMenu(page, id);
  await writeClipboard(page, 'nothing-yet');
  await terminalOf(page, id).click({ button: 'right' });
  await menu.getByRole('menuitem', { name: /^Copy/ }).click();
  await expect.poll(() => readClipboard(page)).toContain('menu-copy-9');

  // Paste: through xterm.js, so bash (which asks for bracketed paste) takes it as text, not as a command.
  await writeClipboard(page, 'echo from-the-menu-$((5*5))');
  await terminalOf(page, id).click({ button: 'right' });
  await menu.getByRole('menuitem', { name: /^Paste/ }).click();
  await expect(menu).toHaveCount(0);
  await expect(terminalOf(page, id).locator('textarea')).toBeFocused();
  await expectScreen(page, id, /^e2e# echo from-the-menu-\$\(\(5\*5\)\)$/m);
  await page.keyboard.press('Enter');
  await expectScreen(page, id, /^from-the-menu-25$/m);
});
