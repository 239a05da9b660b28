// Clicking into an agent's shell must not move anything: not the terminal's
// size (a resize is a SIGWINCH to whatever runs there, and changes the screen
// the agent reads), not the tabs (a tab that shrinks under the pointer makes
// the click land on nothing).
import { AGENT_NAME, expect, expectScreen, keepScreenshot, terminalOf, test } from './fixtures.js';

type Sizes = { cols: number; rows: number; fitting: { cols: number; rows: number } | null };

test('the typing banner does not change the agent terminal\'s size', async ({ panel: page, agent, server }) => {
  const created = await agent.call<{ id: string }>('terminal_create', { title: 'sized' });
  await expectScreen(page, created.id, /^e2e#/m);
  const size = () => page.evaluate((id) => (window as unknown as { __ptydeck: { terminalSize(id: string): Sizes | null } }).__ptydeck.terminalSize(id), created.id);
  // Settled: the terminal fills its pane and the PTY has that size.
  await expect.poll(async () => {
    const shown = await size();
    const pty = (await server.session(created.id))!;
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
  const pty = (await server.session(created.id))!;
  expect({ cols: pty.cols, rows: pty.rows }).toEqual({ cols: before.cols, rows: before.rows });
});

test('tabs keep their place when the developer clicks into an agent\'s shell and out again', async ({ panel: page, agent }) => {
  const first = await agent.call<{ id: string }>('terminal_create', { title: 'first' });
  await agent.call<{ id: string }>('terminal_create', { title: 'second' });
  await agent.call<{ id: string }>('terminal_create', { title: 'third' });
  await expect(page.getByRole('tab')).toHaveCount(3);
  await page.getByRole('tab', { name: `${AGENT_NAME} agent: first` }).click();
  await expectScreen(page, first.id, /^e2e#/m);
  const boxes = () => page.locator('.tab').evaluateAll((tabs) => tabs.map((tab) => {
    const box = tab.getBoundingClientRect();
    return { x: Math.round(box.x), width: Math.round(box.width) };
  }));
  const idle = await boxes();

  await terminalOf(page, first.id).click();
  await expect(page.getByRole('tab', { name: `${AGENT_NAME} agent: first` }).getByTestId('tab-typing')).toBeVisible();
  expect(await boxes()).toEqual(idle);

  // Mouse-down on the third tab blurs the terminal: nothing may move before the mouse-up.
  const third = page.getByRole('tab', { name: `${AGENT_NAME} agent: third` });
  const box = (await third.boundingBox())!;
  await page.mouse.move(box.x + box.width - 6, box.y + box.height / 2);
  await page.mouse.down();
  await expect(page.getByRole('tab', { name: `${AGENT_NAME} agent: first` }).getByTestId('tab-typing')).toBeHidden();
  expect(await boxes()).toEqual(idle);
  await page.mouse.up();
  await expect(third).toHaveAttribute('aria-selected', 'true');
});
