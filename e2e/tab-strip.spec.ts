// The tab strip with many tabs, long titles and several agents: the active tab
// is always in sight (and every tab reachable), titles use the room there is,
// and agents sharing a first letter still look different.
import { connectAgent, expect, keepScreenshot, test } from './fixtures.js';

const inside = (inner: { x: number; width: number }, outer: { x: number; width: number }) =>
  inner.x >= outer.x - 1 && inner.x + inner.width <= outer.x + outer.width + 1;

test('with eleven tabs the active one is scrolled into view, and an overflow menu reaches any tab', async ({ panel: page, agent }) => {
  const ids: string[] = [];
  for (let i = 0; i < 11; i++) ids.push((await agent.call<{ id: string }>('terminal_create', { title: `job-number-${i}` })).id);
  await expect(page.getByRole('tab')).toHaveCount(11);
  const list = page.getByTestId('tab-list');
  const tabOf = (id: string) => page.locator(`[role="tab"][data-session-id="${id}"]`);
  // The whole tab, its pin and close buttons too.
  const wholeTab = (id: string) => page.locator('.tab', { has: tabOf(id) });

  // The last tab, reached from the menu, is brought into sight.
  await page.getByTestId('tab-overflow').click();
  await keepScreenshot(page, 'eleven-tabs-overflow-menu');
  await page.getByTestId('tab-overflow-menu').locator(`[data-session-id="${ids[10]}"]`).click();
  await expect(tabOf(ids[10]!)).toHaveAttribute('aria-selected', 'true');
  await expect(page.getByTestId('tab-overflow-menu')).toHaveCount(0);
  await expect.poll(async () => inside((await wholeTab(ids[10]!).boundingBox())!, (await list.boundingBox())!)).toBe(true);
  await keepScreenshot(page, 'eleven-tabs-last-active');

  // And back to the first with the keyboard: it scrolls back into sight too.
  await page.keyboard.press('Control+Shift+PageDown');
  await expect(tabOf(ids[0]!)).toHaveAttribute('aria-selected', 'true');
  await expect.poll(async () => inside((await wholeTab(ids[0]!).boundingBox())!, (await list.boundingBox())!)).toBe(true);
});

test('a long title is shown whole when the bar has room for it', async ({ panel: page, agent }) => {
  const title = 'npm run build -- --filter packages/app';
  await agent.call('terminal_create', { title });
  const shown = page.getByRole('tab').locator('.tab-title');
  await expect(shown).toHaveText(title);
  const cut = await shown.evaluate((element) => element.scrollWidth > element.clientWidth);
  expect(cut, 'the title is not cut short').toBe(false);
});

test('claude-code and codex get different colours and different avatars', async ({ panel: page, server }) => {
  const claude = await connectAgent(server, 'claude-code');
  const codex = await connectAgent(server, 'codex');
  try {
    await claude.call('terminal_create', { title: 'one' });
    await codex.call('terminal_create', { title: 'two' });
    const badges = page.getByTestId('tab-agent-badge');
    await expect(badges).toHaveText(['claude-code', 'codex']);
    const colours = await badges.evaluateAll((elements) => elements.map((element) => getComputedStyle(element).color));
    expect(colours[0]).not.toBe(colours[1]);
    await expect(page.getByTestId('agent-avatar')).toHaveText(['CC', 'Co']);
    await keepScreenshot(page, 'two-agents');
  } finally {
    await claude.client.close();
    await codex.client.close();
  }
});
