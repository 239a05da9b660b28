// The first panel scenario inside the real Electron window: the app starts the user's
// ptydeck host (on Linux; elsewhere the core in-process), an agent finds it through the
// discovery file (as `ptydeck mcp` would), creates a session, and the window's panel opens
// on the agent's tab. Quitting the app leaves the host and the session running on Linux,
// and ends them where the core ran in-process.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { _electron as electron, expect, test } from '@playwright/test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { findElectronBinary } from '../scripts/electron-binary.mjs';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const binary = findElectronBinary();

test.skip(
  !binary.found,
  `Electron's binary is not installed (${binary.found ? '' : binary.reason}); ` +
    'install it with `npx install-electron` or point ELECTRON_OVERRIDE_DIST_PATH at a local build',
);

/** Whether a process with this pid still exists. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

test('an agent session opens the panel in the Electron window; quitting leaves the host and its sessions', async () => {
  if (!binary.found) return;
  expect(existsSync(join(root, 'electron/dist/main/main.js')), 'build first: npm run build').toBe(true);

  const stateDir = mkdtempSync(join(tmpdir(), 'ptydeck-electron-e2e-'));
  const discoveryFile = join(stateDir, 'server.json');
  const app = await electron.launch({
    executablePath: binary.path,
    // Chromium refuses to run its process sandbox as root; the renderer's JS sandbox
    // (webPreferences.sandbox) is unaffected by this switch.
    args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), join(root, 'electron')],
    env: { ...process.env, PTYDECK_STATE_DIR: stateDir, HOME: stateDir },
  });
  let client: Client | undefined;
  try {
    const window = await app.firstWindow();

    // The app publishes the same discovery file as `ptydeck serve`; an agent starts there.
    await expect.poll(() => existsSync(discoveryFile), { message: 'discovery file written' }).toBe(true);
    const discovery = JSON.parse(readFileSync(discoveryFile, 'utf8')) as { url: string; token: string };

    // The window is the renderer from that server, sandboxed: no Node in the page, and the
    // bridge hands out exactly the discovered connection.
    await window.waitForLoadState('domcontentloaded');
    expect(new URL(window.url()).origin).toBe(new URL(discovery.url).origin);
    expect(await window.evaluate(() => typeof (globalThis as { require?: unknown }).require)).toBe('undefined');
    expect(await window.evaluate(() => typeof (globalThis as { process?: unknown }).process)).toBe('undefined');
    const connection = await window.evaluate(() =>
      (globalThis as unknown as { ptydeck: { connection(): Promise<{ url: string; token: string }> } }).ptydeck.connection(),
    );
    // The bridge hands the renderer the panel token; the agent token on disk is another secret.
    expect(connection.url).toBe(discovery.url);
    expect(connection.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(connection.token).not.toBe(discovery.token);
    expect(readFileSync(discoveryFile, 'utf8')).not.toContain(connection.token);

    client = new Client({ name: 'electron-e2e-agent', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', discovery.url), {
        requestInit: { headers: { Authorization: `Bearer ${discovery.token}` } },
      }),
    );
    const created = await client.callTool({ name: 'terminal_create', arguments: { title: 'electron-e2e' } });
    expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
    const { pid } = created.structuredContent as { id: string; pid: number };

    // The panel opens on its own, and the tab's accessible name says whose shell it is.
    await expect(window.getByRole('region', { name: 'Terminal panel' })).toBeVisible();
    const tab = window.getByRole('tab', { name: /^electron-e2e-agent agent: / });
    await expect(tab).toBeVisible();
    await expect(tab).toHaveAttribute('aria-selected', 'true');
    await window.screenshot({ path: test.info().outputPath('electron-agent-tab.png') });

    await client.close();
    client = undefined;
    await app.close();
    if (process.platform === 'linux') {
      // A client of the host: the host and the shell run on, and the discovery file still names the host.
      expect(alive(pid), `session process ${pid} ended with the app`).toBe(true);
      expect(JSON.parse(readFileSync(discoveryFile, 'utf8')).url).toBe(discovery.url);
    } else {
      // The core ran in-process: quitting closed it first, the shell is gone and so is the discovery file.
      // Polled: a killed child may linger as a zombie until its new parent reaps it.
      await expect.poll(() => alive(pid), { message: `session process ${pid} survived the quit` }).toBe(false);
      expect(existsSync(discoveryFile), 'discovery file left behind').toBe(false);
    }
  } finally {
    await client?.close().catch(() => {});
    await app.close().catch(() => {});
    // The host outlives the app by design: end it, and every session in it.
    if (existsSync(discoveryFile)) {
      const { pid } = JSON.parse(readFileSync(discoveryFile, 'utf8')) as { pid: number };
      if (pid !== process.pid && alive(pid)) process.kill(pid, 'SIGTERM');
      await expect.poll(() => alive(pid), { timeout: 15_000 }).toBe(false);
    }
    rmSync(stateDir, { recursive: true, force: true });
  }
});
