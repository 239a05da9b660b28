// Issue 32.2, as a person presses the keys: real X key events (xdotool) to a windowed
// Chromium under Xvfb, where the browser's own shortcuts see a key before the page does
// (Ctrl+Shift+C is Chromium's inspector, Ctrl+V its paste). Playwright's keys go straight
// to the page and would miss that. Runs in the `windowed` project; scripts/e2e.mjs
// starts Xvfb when there is no display.
import { execFileSync } from 'node:child_process';
import type { Page } from '@playwright/test';
import { expect, expectScreen, openUserTerminal, terminalOf, test } from './fixtures.js';

const hasXdotool = (() => {
  try {
    execFileSync('xdotool', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

test.use({ permissions: ['clipboard-read', 'clipboard-write'] });
test.skip(!process.env.DISPLAY || !hasXdotool, 'needs an X display and xdotool (apt-get install xvfb xdotool)');

const readClipboard = (page: Page) => page.evaluate(() => navigator.clipboard.readText());
const writeClipboard = (page: Page, text: string) => page.evaluate((value) => navigator.clipboard.writeText(value), text);

/** Presses a chord as the X server delivers it to the focused Chromium window (xdotool key names). */
function press(chord: string): void {
  execFileSync('xdotool', ['key', '--clearmodifiers', chord]);
}

async function run(page: Page, command: string): Promise<void> {
  await page.keyboard.type(command);
  await page.keyboard.press('Enter');
}

test('in a windowed Chromium, the copy and paste keys reach the terminal and Ctrl+C still interrupts', async ({ panel: page }) => {
  // The one Chromium window this test's browser has, given the X keyboard focus (there is no window manager).
  const window = execFileSync('xdotool', ['search', '--onlyvisible', '--class', 'chromium']).toString().trim().split('\n').at(-1)!;
  execFileSync('xdotool', ['windowfocus', '--sync', window]);
  const id = await openUserTerminal(page);
  await run(page, 'echo copy-me-$((6*7))');
  await expectScreen(page, id, /^copy-me-42$/m);
  await run(page, 'cat');

  // Ctrl+C with a selection copies and leaves cat running.
  await terminalOf(page, id).click({ button: 'right' });
  await page.getByRole('menu', { name: 'Terminal' }).getByRole('menuitem', { name: 'Select all' }).click();
  await expect(terminalOf(page, id).locator('textarea')).toBeFocused();
  press('ctrl+c');
  await expect.poll(() => readClipboard(page)).toContain('copy-me-42');
  await run(page, 'still-reading');
  await expectScreen(page, id, /^still-reading\nstill-reading$/m);
  // Without one it interrupts.
  press('ctrl+c');
  await expectScreen(page, id, /^\^C\ne2e#/m);
  await run(page, 'echo cat-ended-$?');
  await expectScreen(page, id, /^cat-ended-130$/m);

  // Ctrl+Shift+C: the page's, not the browser inspector's.
  await writeClipboard(page, 'nothing-yet');
  await terminalOf(page, id).click({ button: 'right' });
  await page.getByRole('menu', { name: 'Terminal' }).getByRole('menuitem', { name: 'Select all' }).click();
  press('ctrl+shift+c');
  await expect.poll(() => readClipboard(page)).toContain('cat-ended-130');

  // Ctrl+V and Ctrl+Shift+V paste, bracketed when the program asked for it.
  // The terminal has bracketed paste on once it drew what the shell printed after turning it on: pressed
  // before that, the paste went in unbracketed.
  await run(page, "printf '\\e[?2004h'; echo paste-$((6*7)); cat -v");
  await expectScreen(page, id, /^paste-42$/m);
  await writeClipboard(page, 'pasted-by-ctrl-v');
  press('ctrl+v');
  await page.keyboard.press('Enter');
  await expectScreen(page, id, /^\^\[\[200~pasted-by-ctrl-v\^\[\[201~$/m);
  await writeClipboard(page, 'pasted-by-ctrl-shift-v');
  press('ctrl+shift+v');
  await page.keyboard.press('Enter');
  await expectScreen(page, id, /^\^\[\[200~pasted-by-ctrl-shift-v\^\[\[201~$/m);
  press('ctrl+c');
  await expectScreen(page, id, /^\^C\ne2e#/m);
});
