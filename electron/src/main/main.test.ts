import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { joinHostAsPanel } from '@ptydeck/core';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { hostSandbox, processesOf, reap } from '../../../packages/core/src/testing/host-sandbox.js';
import { FakeApp, FakeIpcMain, FakeSession } from './testing/fakes.js';

// main.ts wired to the real core: Electron is faked (its binary is not needed to check
// the wiring), the host is real, started detached in a state directory and HOME of this test's own.
const sandbox = hostSandbox();
for (const [name, value] of Object.entries(sandbox.env)) vi.stubEnv(name, value);

const fakes = vi.hoisted(() => ({ windows: [] as Array<{ options: Record<string, unknown>; url: string | null }> }));
vi.mock('electron', async () => {
  const { FakeApp, FakeIpcMain, FakeSession } = await import('./testing/fakes.js');
  class BrowserWindow {
    url: string | null = null;
    constructor(readonly options: Record<string, unknown>) {
      fakes.windows.push(this);
    }
    once() {
      return this;
    }
    loadURL(url: string) {
      this.url = url;
      return Promise.resolve();
    }
    isDestroyed() {
      return false;
    }
  }
  return {
    app: new FakeApp(),
    ipcMain: new FakeIpcMain(),
    session: { defaultSession: new FakeSession() },
    shell: { openExternal: () => Promise.resolve() },
    clipboard: { readText: () => '', writeText: () => {} },
    BrowserWindow,
    Notification: class {
      on() {
        return this;
      }
      show() {}
    },
  };
});

const electron = (await import('electron')) as unknown as {
  app: FakeApp;
  ipcMain: FakeIpcMain;
  session: { defaultSession: FakeSession };
};

afterAll(() => {
  vi.unstubAllEnvs();
  // The host outlives the app by design: this test ends it, and everything it started.
  reap(sandbox);
});

/** Whether a process with this pid still exists (a zombie counts until it is reaped). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

describe('main', () => {
  it.runIf(process.platform === 'linux')('opens the window on the user\'s host, and quitting leaves the host and its sessions running', async () => {
    await import('./main.js');
    await vi.waitFor(() => expect(fakes.windows).toHaveLength(1), { timeout: 20_000 });
    const window = fakes.windows[0]!;
    expect(window.options).toMatchObject({ webPreferences: { sandbox: true, preload: expect.stringMatching(/preload[\\/]preload\.cjs$/) } });
    const record = JSON.parse(readFileSync(join(sandbox.stateDir, 'server.json'), 'utf8')) as { token: string; pid: number; url: string };
    // The sessions' server is a host of its own, not this process.
    expect(record.pid).not.toBe(process.pid);

    const connection = (await electron.ipcMain.invoke('ptydeck:connection', { url: window.url! })) as { url: string; token: string };
    // No ticket in the window's URL: the bridge hands the renderer the panel token.
    expect(window.url).toBe(`${connection.url}/`);
    expect(connection.url).toBe(record.url);
    expect(connection.token.length).toBeGreaterThanOrEqual(43);
    expect(record.token).not.toBe(connection.token);
    const panelAccess = (token: string) => fetch(`${connection.url}/panel/access`, { headers: { Authorization: `Bearer ${token}` } }).then((r) => r.status);
    expect(await panelAccess(connection.token)).toBe(204);

    // The two scopes stay apart: /mcp takes the agent token from server.json, not the panel token.
    const mcp = (token: string) =>
      fetch(`${connection.url}/mcp`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'main-test', version: '1' } } }),
      });
    expect((await mcp('wrong')).status).toBe(401);
    expect((await mcp(connection.token)).status).toBe(401);
    expect((await mcp(record.token)).status).toBe(200);

    // An agent's shell, created the way an agent does, outlives the app.
    const client = new Client({ name: 'main-test-agent', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL('/mcp', connection.url), {
        requestInit: { headers: { Authorization: `Bearer ${record.token}` } },
      }),
    );
    const created = await client.callTool({ name: 'terminal_create', arguments: {} });
    expect(created.isError, JSON.stringify(created.content)).toBeFalsy();
    const { pid } = created.structuredContent as { pid: number };
    expect(alive(pid)).toBe(true);
    await client.close();

    electron.app.quit();
    await vi.waitFor(() => expect(electron.app.quitted).toBe(true), { timeout: 20_000 });
    expect(alive(pid), 'the shell outlives the app').toBe(true);
    expect(alive(record.pid), 'the host outlives the app').toBe(true);
    expect(processesOf(sandbox.stateDir)).toContain(record.pid);
    // The next launch joins the same host, with panel scope again.
    const again = await joinHostAsPanel({ log: () => {} });
    expect(again).toMatchObject({ url: record.url, pid: record.pid });
    expect(await panelAccess(again.panelToken)).toBe(204);
  });
});
