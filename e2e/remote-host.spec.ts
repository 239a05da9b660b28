// A remote host in the local panel, through real OpenSSH on loopback (a test sshd, a test user with the checkout's
// ptydeck): its tab opens, grouped and labelled by host, takes typing, and its server's port chip opens here.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { buildCore } from '../packages/core/src/testing/host-sandbox.js';
import { canRunSshServer, closeSshServers, startSshServer, type SshServer } from '../packages/core/src/testing/ssh-server.js';
import { activeSessionId, expect, expectScreen, keepScreenshot, screenText, terminalOf, test, type E2eServer } from './fixtures.js';

test.skip(!canRunSshServer(), 'needs root (to add a test user), /usr/sbin/sshd and ssh-keygen');

let sshd: SshServer;

test.beforeAll(async () => {
  buildCore();
  sshd = await startSshServer();
  sshd.install();
  // The e2e server process (forked per test) runs ssh through the kit's wrapper: its config and key, never ~/.ssh.
  process.env.PTYDECK_SSH = sshd.ssh;
});

test.afterAll(async () => {
  delete process.env.PTYDECK_SSH;
  // Also the server of a beforeAll that timed out, once its start ends.
  await closeSshServers();
});

/** The panel, with remote 'box' in the server's remotes.json before the page asks for its hosts. */
async function panelWithRemote(page: Page, server: E2eServer): Promise<void> {
  writeFileSync(join(server.configDir, 'remotes.json'), JSON.stringify({ remotes: { box: { destination: sshd.alias } } }));
  await page.goto(await server.panelUrl());
  await expect(page.getByTestId('connection-status')).toHaveAttribute('data-state', 'connected');
}

/** Opens a shell on box from the top bar's "+ box" and waits for its prompt. */
async function openRemoteTerminal(page: Page): Promise<string> {
  const button = page.locator('[data-testid="new-remote-terminal"][data-host="box"]');
  await expect(button).toHaveAttribute('data-state', 'connected', { timeout: 30_000 });
  await button.click();
  await expect(page.getByRole('tab', { selected: true })).toHaveAttribute('data-host', 'box');
  const id = await activeSessionId(page);
  await expect(terminalOf(page, id).locator('textarea')).toBeFocused();
  // The test user's login shell is /bin/sh: its prompt.
  await expectScreen(page, id, /^\$\s*$/m);
  return id;
}

test("a remote's tab opens from the panel, labelled by its host, and takes typing", async ({ page, server }) => {
  await panelWithRemote(page, server);
  const id = await openRemoteTerminal(page);
  // Not this machine's session: the local host only relays it.
  expect(await server.session(id)).toBeNull();
  await expect(page.locator('[data-testid="tab-host-group"][data-host="box"]')).toHaveText('box');
  await page.keyboard.type('echo "remote-$((6*7)) $(id -un) $HOME"');
  await page.keyboard.press('Enter');
  await expectScreen(page, id, new RegExp(`^remote-42 ${sshd.user} ${sshd.home}$`, 'm'));
  await keepScreenshot(page, 'remote-tab');
  // The shell runs on in box's host after this panel goes: end it, as the next test opens its own.
  await page.keyboard.type('exit');
  await page.keyboard.press('Enter');
  await expect(page.locator(`[data-testid="tab"][data-session-id="${id}"]`)).toHaveCount(0);
});

test('a remote that was never reached says why in its banner (what ssh said), not "Reconnecting"', async ({ page, server }) => {
  // Nothing listens on port 1: ssh's connection is refused at once, on every try.
  writeFileSync(join(server.configDir, 'remotes.json'), JSON.stringify({ remotes: { down: { destination: 'ssh://nobody@127.0.0.1:1' } } }));
  await page.goto(await server.panelUrl());
  const banner = page.locator('[data-testid="host-banner"][data-host="down"]');
  await expect(banner).toHaveText(/^Cannot reach down \(ssh:\/\/nobody@127\.0\.0\.1:1\) yet: .*Connection refused; trying again\.$/, { timeout: 30_000 });
  await expect(banner).toHaveAttribute('data-state', 'connecting');
  await expect(page.locator('[data-testid="new-remote-terminal"][data-host="down"]')).toBeDisabled();
  await keepScreenshot(page, 'remote-never-reached');
});

test("a remote server's port chip opens its page in this browser through an ssh forward, gone with the session", async ({ page, server, context }) => {
  await panelWithRemote(page, server);
  const id = await openRemoteTerminal(page);
  await page.keyboard.type('mkdir -p site && echo "<h1>served-on-box</h1>" > site/index.html && cd site && python3 -m http.server 0 --bind 127.0.0.1');
  await page.keyboard.press('Enter');
  await expectScreen(page, id, /Serving HTTP on 127\.0\.0\.1 port \d+/, 20_000);
  const port = Number(/Serving HTTP on 127\.0\.0\.1 port (\d+)/.exec(await screenText(page, id))![1]);
  const chip = page.locator(`[data-testid="port-chip"][data-session-id="${id}"][data-port="${port}"]`).first();
  await expect(chip).toHaveAttribute('data-host', 'box');
  const popup = context.waitForEvent('page');
  await chip.click();
  const opened = await popup;
  await opened.waitForLoadState();
  // A port of this machine's loopback, forwarded by ssh: not the remote's port number by chance.
  expect(opened.url()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
  await expect(opened.locator('h1')).toHaveText('served-on-box');
  const forwarded = opened.url();
  await opened.close();

  // The session ends: the forward goes with it.
  await page.locator(`[data-testid="tab"][data-session-id="${id}"]`).click();
  // The click moves the keyboard to the terminal once the tab is shown: a key pressed before that goes to the page
  // (under CI's load the Ctrl+C did, and the server kept running under the typed `exit`).
  await expect(terminalOf(page, id).locator('textarea')).toBeFocused();
  await page.keyboard.press('Control+C');
  await expectScreen(page, id, /Keyboard interrupt received, exiting\.\s*^\$\s*$/m);
  await page.keyboard.type('exit');
  await page.keyboard.press('Enter');
  await expect(page.locator(`[data-testid="tab"][data-session-id="${id}"]`)).toHaveCount(0);
  await expect.poll(async () => (await fetch(forwarded).then(() => 'open', () => 'closed')), { message: 'the forward is torn down', timeout: 15_000 }).toBe('closed');
});
