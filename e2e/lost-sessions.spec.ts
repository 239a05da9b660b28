// Issue 24: after the host is killed, crashes or is upgraded, the sessions it was
// running come back on the next one as `lost`: read-only tabs marked lost with the
// output it had saved, grouped in the overview, until the developer closes them.
// The server restores the records before it serves, as the host restores its store's.
import { randomUUID } from 'node:crypto';
import type { SessionInfo } from '@ptydeck/contract';
import { expect, expectScreen, keepScreenshot, screenText, terminalOf, test, type E2eLostRecord } from './fixtures.js';
import type { Page } from '@playwright/test';

const MINE = randomUUID();
const AGENTS = randomUUID();

function lostRecord(info: Partial<SessionInfo> & Pick<SessionInfo, 'id' | 'title'>, text: string, unwrittenBytes: number): E2eLostRecord {
  const start = 10_000;
  return {
    info: {
      source: 'user', owner: null, ownerName: null, command: '/bin/bash', args: [], cwd: '/tmp', pid: 4242, cols: 80, rows: 24,
      status: 'running', exitCode: null, signal: null, createdAt: Date.now() - 60_000, exitedAt: null, ...info,
    },
    start,
    text,
    readEnd: start + Buffer.byteLength(text) + unwrittenBytes,
  };
}

test.use({
  lostRecords: {
    records: [
      lostRecord({ id: MINE, title: 'my-build' }, 'e2e$ make\r\nbuilt-before-the-crash-42\r\ne2e$ ', 2048),
      lostRecord({ id: AGENTS, title: 'tests', source: 'agent', owner: 'gone-connection', ownerName: 'claude-code' }, 'agent-marker-7\r\n', 0),
    ],
  },
});

test('lost sessions show as read-only tabs marked lost, with their saved text, grouped in the overview; typing goes nowhere; close removes them', async ({ panel: page, server }) => {
  const tablist = page.getByRole('tablist', { name: 'Terminals' });
  const mine = tablist.getByRole('tab', { name: 'my-build, lost' });
  const agents = tablist.getByRole('tab', { name: 'claude-code agent: tests, lost' });
  await expect(mine).toHaveAttribute('data-status', 'lost');
  await expect(agents).toHaveAttribute('data-status', 'lost');
  const mark = mine.getByTestId('tab-lost');
  await expect(mark).toHaveText('lost');
  await expect(mark).toHaveAttribute('title', 'lost: the host restarted; output as last saved (at least 2.0 KiB of its end is missing)');
  await expect(agents.getByTestId('tab-lost')).toHaveAttribute('title', 'lost: the host restarted; output as last saved');

  const lostGroup = page.getByTestId('lost-sessions');
  await expect(lostGroup.getByRole('heading')).toHaveText('Lost when the host restarted');
  await expect(lostGroup.locator('[data-testid="overview-session"][data-status="lost"]')).toHaveCount(2);
  await expect(lostGroup.getByTestId('overview-session-status').first()).toHaveText('lost');

  await mine.click();
  await expectScreen(page, MINE, /built-before-the-crash-42/);
  await expect(page.getByTestId('lost-banner')).toContainText('lost: the host restarted; output as last saved (at least 2.0 KiB of its end is missing)');
  await expect(page.getByTestId('lost-banner')).toContainText('what you type goes nowhere');
  await keepScreenshot(page, 'lost-tab');

  // Typed keys go nowhere: the terminal takes none, so none reach the server (which would answer with an error notice).
  const end = await server.logEnd(MINE);
  await terminalOf(page, MINE).click();
  await page.keyboard.type('echo typed-into-lost\n');
  await agents.click();
  await expectScreen(page, AGENTS, /agent-marker-7/);
  await page.getByRole('button', { name: 'Close tests' }).click();
  // Its removal comes back on the socket the keys would have used: anything sent before it has been answered by now.
  await expect(agents).toHaveCount(0);
  await expect.poll(() => server.session(AGENTS)).toBeNull();
  await expect(page.getByTestId('notice')).toHaveCount(0);
  expect(await server.logEnd(MINE)).toBe(end);
  expect(await screenText(page, MINE)).not.toContain('typed-into-lost');

  // Closing the developer's removes it too: the overview's group goes with the last one.
  await mine.click();
  await page.getByRole('button', { name: 'Close my-build' }).click();
  await expect(mine).toHaveCount(0);
  await expect.poll(() => server.session(MINE)).toBeNull();
  await expect(lostGroup).toHaveCount(0);
});

test("the overview's remove-all removes every lost session and its tab", async ({ panel: page, server }) => {
  const lostGroup = page.getByTestId('lost-sessions');
  await expect(lostGroup.getByTestId('overview-session')).toHaveCount(2);
  await expect(page.locator('[role="tab"][data-status="lost"]')).toHaveCount(2);
  await lostGroup.getByTestId('remove-lost-sessions').click();
  await expect(lostGroup).toHaveCount(0);
  await expect(page.getByRole('tab')).toHaveCount(0);
  await expect.poll(() => server.sessions()).toEqual([]);
});

test.describe('a restored session that had exited', () => {
  const DONE = randomUUID();
  test.use({
    lostRecords: { records: [lostRecord({ id: DONE, title: 'old-build', status: 'exited', exitCode: 0, exitedAt: Date.now() - 30_000 }, 'built-long-ago\r\n', 0)] },
  });

  test('is marked restored in the overview and on its tab, not lost', async ({ panel: page }) => {
    const row = page.locator(`[data-testid="overview-session"][data-session-id="${DONE}"]`);
    await expect(row.getByTestId('overview-session-status')).toHaveText('exit 0 · restored');
    await expect(row.getByTestId('overview-session-restored')).toHaveAttribute('title', /earlier ptydeck host left on disk/);
    await row.getByRole('button').first().click();
    const tab = page.getByRole('tablist', { name: 'Terminals' }).getByRole('tab', { name: 'old-build, restored' });
    await expect(tab.getByTestId('tab-restored')).toHaveText('restored');
    await expect(tab.getByTestId('tab-lost')).toHaveCount(0);
    await expectScreen(page, DONE, /built-long-ago/);
  });
});

/** The box of the first row xterm.js drew in a session's terminal. */
async function firstRowBox(page: Page, id: string) {
  const row = terminalOf(page, id).locator('.xterm-rows > div').first();
  return { text: await row.textContent(), box: (await row.boundingBox())! };
}

test("a lost agent tab shows one banner, never the typing one, and its output's first line below it", async ({ panel: page }) => {
  const agents = page.getByRole('tablist', { name: 'Terminals' }).getByRole('tab', { name: 'claude-code agent: tests, lost' });
  await agents.click();
  await expectScreen(page, AGENTS, /agent-marker-7/);
  // Clicked into, as a developer would before typing: the terminal takes no keys, and nothing says the agent sees them.
  await terminalOf(page, AGENTS).click();
  await expect(page.getByTestId('lost-banner')).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: /typing into|goes nowhere/ })).toHaveCount(1);
  await expect(page.getByTestId('typing-banner')).toHaveCount(0);
  await expect(agents.getByTestId('tab-typing')).toBeHidden();
  const banner = (await page.getByTestId('lost-banner').boundingBox())!;
  const first = await firstRowBox(page, AGENTS);
  expect(first.text).toContain('agent-marker-7');
  expect(first.box.y).toBeGreaterThanOrEqual(banner.y + banner.height);
  await keepScreenshot(page, 'lost-agent-tab-banner');
});
