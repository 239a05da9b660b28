// Clicking into an agent's shell must not move anything: not the terminal's
// size (a resize is a SIGWINCH to whatever runs there, and changes the screen
// the agent reads), not the tabs (a tab that shrinks under the pointer makes
// the click land on nothing).
import { expect, expectScreen, keepScreenshot, terminalOf, test } from './fixtures.js';

type Sizes = { cols: number; rows: number; fitting: { cols: number; rows: number } | null };

test('the typing banner does not change the agent terminal\'s size', async ({ panel: page, agent, server }) => {
  const created = await agent.call<{ id: string }>('terminal_create', { title: 'sized' });
  await expectScreen(page, created.id, /^e2e#/m);
  const size = () => page.evaluate((id) => (window as unknown as { __ptydeck: { terminalSize(id: string): Sizes | null } }).__ptydeck.terminalSize(id), created.id);
  // Settled: the terminal fills its pane and the PTY has that size.
  await expect.poll(async () => {
    const shown = await size();
    const pty = server.service.get(created.id)!;
    return shown?.fitting?.rows === shown?.rows && pty.rows === shown?.rows && pty.cols === shown?.cols;
  }).toBe(true);
  const before = (await size())!;

  await terminalOf(page, created.id).click();
  await expect(page.getByTestId('typing-banner')).toBeVisible();
  await keepScreenshot(page, 'typing-banner-overlay');
  // What would fill the pane with the banner showing: the same size, so nothing is sent.
  expect((await size())!.fitting).toEqual({ cols: before.cols, rows: before.rows });

  await page.getByTestId('overview').click({ position: { x: 5, y: 5 } });
  await expect(page.getByTestId('typing-banner')).toHaveCount(0);
  expect((await size())!.fitting).toEqual({ cols: before.cols, rows: before.rows });
  const pty = server.service.get(created.id)!;
  expect({ cols: pty.cols, rows: pty.rows }).toEqual({ cols: before.cols, rows: before.rows });
});
