// Issue 32.4 and 32.9, the panel's parts: banners sit above a terminal's output, never on it;
// hiding the chats gives the keyboard back to the terminal; an 800×600 window leaves the
// terminal room and the tabs their names.
import type { Page } from '@playwright/test';
import { AGENT_NAME, expect, expectScreen, keepScreenshot, openUserTerminal, terminalOf, test } from './fixtures.js';

async function firstRowBox(page: Page, id: string) {
  const row = terminalOf(page, id).locator('.xterm-rows > div').first();
  return { text: await row.textContent(), box: (await row.boundingBox())! };
}

test("the typing banner sits above an agent shell's first line, not over it", async ({ panel: page, agent }) => {
  const created = await agent.call<{ id: string }>('terminal_create', { title: 'first-line' });
  await expectScreen(page, created.id, /^e2e#/m);
  await terminalOf(page, created.id).click();
  const banner = (await page.getByTestId('typing-banner').boundingBox())!;
  const first = await firstRowBox(page, created.id);
  expect(first.text).toMatch(/^e2e#/);
  expect(first.box.y).toBeGreaterThanOrEqual(banner.y + banner.height);
});

test('hiding the chats gives the keyboard back to the terminal', async ({ panel: page }) => {
  const id = await openUserTerminal(page);
  await page.getByTestId('toggle-chat').click();
  await expect(page.getByTestId('chat-pane')).toBeVisible();
  await page.getByRole('button', { name: 'Hide chats' }).click();
  await expect(page.getByTestId('chat-pane')).toBeHidden();
  await expect(terminalOf(page, id).locator('textarea')).toBeFocused();
  await page.keyboard.type('echo typed-after-hiding');
  await page.keyboard.press('Enter');
  await expectScreen(page, id, /^typed-after-hiding$/m);
});

test.describe('in an 800×600 window', () => {
  test.use({ viewport: { width: 800, height: 600 } });

  test('the terminal gets most of the height and tabs keep their names readable, chats open or not', async ({ panel: page, agent, server }) => {
    await openUserTerminal(page);
    const mine = await openUserTerminal(page);
    // An agent's new shells open in the background: the keyboard stays in the developer's.
    await agent.call('terminal_create', { title: 'npm run build' });
    await agent.call('terminal_create', { title: 'integration tests' });
    await expect(page.getByRole('tab')).toHaveCount(4);
    // The overview gives way (it scrolls): well under a third of the window; the terminal gets 20 rows or more.
    const overview = (await page.getByTestId('overview').boundingBox())!;
    expect(overview.height).toBeLessThan(600 / 3 - 40);
    await expect.poll(async () => (await server.session(mine))?.rows ?? 0).toBeGreaterThanOrEqual(20);

    // Each tab's title keeps room for 8 characters, an agent's badge for 4; the strip scrolls instead.
    const narrowest = () =>
      page.locator('.tab').evaluateAll((tabs) => {
        const widthOf = (host: Element, className: string, chars: number) => {
          const probe = document.createElement('span');
          probe.className = className;
          probe.style.cssText = `position:absolute;visibility:hidden;min-width:0;width:auto`;
          probe.textContent = '0'.repeat(chars);
          host.appendChild(probe);
          const width = probe.getBoundingClientRect().width;
          probe.remove();
          return width;
        };
        return tabs.map((tab) => {
          const main = tab.querySelector('.tab-main')!;
          const title = tab.querySelector('.tab-title')!;
          const badge = tab.querySelector('.agent-badge');
          return {
            title: title.getBoundingClientRect().width >= Math.min(widthOf(main, 'tab-title', 8), title.scrollWidth) - 1,
            badge: badge === null || badge.getBoundingClientRect().width >= Math.min(widthOf(main, 'agent-badge', 4), badge.scrollWidth) - 1,
          };
        });
      });
    for (const tab of await narrowest()) expect(tab).toEqual({ title: true, badge: true });
    await page.getByTestId('toggle-chat').click();
    await expect(page.getByTestId('chat-pane')).toBeVisible();
    for (const tab of await narrowest()) expect(tab).toEqual({ title: true, badge: true });
    await expect(page.getByTestId('tab-overflow')).toBeVisible();
    await keepScreenshot(page, `small-window-${AGENT_NAME}`);
  });
});
