// Issue 24's "Done when", in the panel: a server keeping its sessions (the host's
// session store) is SIGKILLed while an agent's shell has printed a marker and the
// developer's tab has scrollback; the next server on the same state dir shows both
// tabs lost, read-only, with their text.
import { activeSessionId, connectAgent, expect, expectScreen, keepScreenshot, launchServer, test, type LaunchedServer } from './fixtures.js';

let launched: LaunchedServer | undefined;
test.afterEach(async () => {
  await launched?.dispose();
  launched = undefined;
});

test('after the server is killed, the next one shows the developer\'s and the agent\'s tabs lost with their text', async ({ page }) => {
  launched = await launchServer({ persist: true });
  const first = launched.server;
  const agent = await connectAgent(first);
  const shell = await agent.call<{ id: string }>('terminal_create', { title: 'build' });
  await agent.call('terminal_run', { id: shell.id, command: 'echo agent-MARKER-$((40+2))' });

  await page.goto(await first.panelUrl());
  await expect(page.getByTestId('connection-status')).toHaveAttribute('data-state', 'connected');
  await page.keyboard.press('Control+Shift+T');
  await expect(page.getByRole('tab')).toHaveCount(2);
  const mine = await activeSessionId(page);
  await page.keyboard.type('echo dev-SCROLLBACK-$((2+3))');
  await page.keyboard.press('Enter');
  await expectScreen(page, mine, /^dev-SCROLLBACK-5$/m);
  await expectScreen(page, shell.id, /^agent-MARKER-42$/m);

  // What the store wrote is what the next server finds: wait for it, then kill with nothing flushed.
  await first.persisted();
  await launched.kill();
  await agent.client.close().catch(() => {});
  await expect(page.getByTestId('connection-status')).not.toHaveAttribute('data-state', 'connected');

  // The next server is on another port, as a restarted host may be: the developer opens its link.
  const next = await launched.restart();
  await page.goto(await next.panelUrl());
  await expect(page.getByTestId('connection-status')).toHaveAttribute('data-state', 'connected');
  const tablist = page.getByRole('tablist', { name: 'Terminals' });
  for (const id of [mine, shell.id]) await expect(tablist.locator(`[role="tab"][data-session-id="${id}"]`)).toHaveAttribute('data-status', 'lost');
  await expect(tablist.getByRole('tab', { name: /agent: build, lost$/ })).toHaveCount(1);

  await tablist.locator(`[role="tab"][data-session-id="${mine}"]`).click();
  await expectScreen(page, mine, /^dev-SCROLLBACK-5$/m);
  await expect(page.getByTestId('lost-banner')).toContainText('lost: the host restarted; output as last saved');
  await tablist.locator(`[role="tab"][data-session-id="${shell.id}"]`).click();
  await expectScreen(page, shell.id, /^agent-MARKER-42$/m);
  await expect(page.getByTestId('lost-sessions').getByTestId('overview-session')).toHaveCount(2);
  await keepScreenshot(page, 'lost-after-kill');
});
