// An agent's output that asks xterm.js for a huge count: a scroll, a line insert or a repeat of 2147483647, each
// of which xterm.js carried out once per count. One such sequence held the page's only thread for hours: every
// tab of the panel froze, the developer's own included. The panel's terminal now drops such counts and goes on.
import type { Page } from '@playwright/test';
import { expect, expectScreen, terminalOf, test } from './fixtures.js';

/** The replay player's screen: its rows as text. */
function playerText(page: Page): Promise<string> {
  return page
    .getByTestId('replay-player')
    .locator('.ap-line')
    .evaluateAll((rows) => rows.map((row) => (row.textContent ?? '').replace(/\u00a0/g, ' ').trimEnd()).join('\n'));
}

interface Created { id: string }

test("an agent's output with huge counts (SU, IL, REP, CBT) leaves the panel live and drawing", async ({ panel: page, agent }) => {
  const created = await agent.call<Created>('terminal_create', { title: 'counts' });
  await expect(page.getByRole('tab', { name: /counts/ })).toHaveAttribute('aria-selected', 'true');
  await agent.call('terminal_run', {
    id: created.id,
    command: "printf 'kept-line\\n\\033[2147483647S\\033[2147483647L\\033[2147483647Z\\033[2147483647b'; echo after-$((6*7))",
  });
  await expectScreen(page, created.id, /^after-42$/m);
  // What the dropped sequences would have blanked is still there.
  await expectScreen(page, created.id, /^kept-line$/m);
  // The replay plays the same bytes in asciinema's own terminal: it reaches the end too.
  await terminalOf(page, created.id).click({ button: 'right' });
  await page.getByRole('menuitem', { name: 'Replay' }).click();
  await expect(page.getByRole('dialog', { name: /^Replay of / })).toBeVisible();
  // Next command jumps to where the command started, and from there (past the last marker) to the end. The
  // command's own marker shows its output only when that output reached the host in the same read as its start.
  await page.getByTestId('replay-next').click();
  await expect(page.getByTestId('replay-where')).toHaveText(/^command 1 of 1: printf /);
  await page.getByTestId('replay-next').click();
  await expect.poll(() => playerText(page)).toMatch(/^after-42$/m);
});
