// What a session runs, as the developer sees it: a server's port as a chip on its tab that opens
// the page through the checked link path, and a detached job left by a closed tab, ended from the overview.
import { expect, expectScreen, keepScreenshot, openUserTerminal, screenText, terminalOf, test } from './fixtures.js';

test('a server started in a tab gets a port chip whose click opens its page through the checked path', async ({ panel: page, context }) => {
  const id = await openUserTerminal(page);
  await page.keyboard.type('python3 -m http.server 0 --bind 127.0.0.1');
  await page.keyboard.press('Enter');
  await expectScreen(page, id, /Serving HTTP on 127\.0\.0\.1 port \d+/);
  const port = Number(/port (\d+)/.exec(await screenText(page, id))![1]);

  const chip = page.getByTestId('tab-list').locator(`[data-testid="port-chip"][data-session-id="${id}"][data-port="${port}"]`);
  await expect(chip).toHaveText(`:${port}`);
  await expect(chip).toHaveAttribute('title', new RegExp(`^Port ${port}: .*http\\.server.* on 127\\.0\\.0\\.1; open http://127\\.0\\.0\\.1:${port}/$`));
  await keepScreenshot(page, 'port-chip-on-tab');

  // openSafeLink opens it in a new browsing context with noopener: the page gets no handle back to the panel.
  const popup = context.waitForEvent('page');
  await chip.click();
  const opened = await popup;
  await opened.waitForLoadState();
  expect(opened.url()).toBe(`http://127.0.0.1:${port}/`);
  await expect(opened.locator('h1')).toContainText('Directory listing');
  expect(await opened.evaluate(() => window.opener === null)).toBe(true);
  await opened.close();

  // The server ends: its chip goes.
  await page.getByRole('tab', { selected: true }).click();
  await expect(terminalOf(page, id).locator('textarea')).toBeFocused();
  await page.keyboard.press('Control+C');
  await expect(chip).toHaveCount(0);
});

test('a job a closed tab left running is listed in the overview and ended from there', async ({ panel: page }) => {
  const id = await openUserTerminal(page);
  await page.keyboard.type('nohup sleep 984 >/dev/null 2>&1 & echo job-$!');
  await page.keyboard.press('Enter');
  await expectScreen(page, id, /^job-\d+$/m);
  const pid = /^job-(\d+)$/m.exec(await screenText(page, id))![1]!;
  // As closing a terminal window does: the shell goes, the nohup job lives on.
  await page.keyboard.type('exit');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('tab')).toHaveCount(0);

  const left = page.locator(`[data-testid="leftover-session"][data-session-id="${id}"]`);
  const job = left.locator(`[data-testid="process"][data-pid="${pid}"]`);
  await expect(job).toContainText('sleep 984');
  await keepScreenshot(page, 'left-running');
  await job.getByTestId('end-process').click();
  await expect(left).toHaveCount(0);
});
