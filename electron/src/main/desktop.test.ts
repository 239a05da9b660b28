import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { bridgeChannels } from './bridge.js';
import { contentSecurityPolicy } from './csp.js';
import { runDesktop, type DesktopDeps, type DesktopServer, type DesktopServerHooks } from './desktop.js';
import { FakeApp, FakeContents, FakeIpcMain, FakeNotification, FakeSession } from './testing/fakes.js';

const url = 'http://127.0.0.1:4000';

function setup(options: { platform?: NodeJS.Platform; singleInstance?: boolean } = {}) {
  const app = new FakeApp();
  app.singleInstance = options.singleInstance ?? true;
  const ipcMain = new FakeIpcMain();
  const session = new FakeSession();
  const shell = { openExternal: vi.fn(() => Promise.resolve()) };
  const clipboard = { readText: vi.fn(() => ''), writeText: vi.fn() };
  const processLike = new EventEmitter();
  const server: DesktopServer & { closed: boolean } = {
    url,
    panelToken: 'p4n3l',
    closed: false,
    close: vi.fn(async () => {
      server.closed = true;
    }),
  };
  const windows: Array<{
    url: string;
    destroyed: boolean;
    minimized: boolean;
    focus: ReturnType<typeof vi.fn>;
    restore: ReturnType<typeof vi.fn>;
    webContents: { send: ReturnType<typeof vi.fn> };
  }> = [];
  const createWindow = vi.fn((loadUrl: string) => {
    const window = {
      url: loadUrl,
      destroyed: false,
      minimized: false,
      focus: vi.fn(),
      isMinimized: () => window.minimized,
      restore: vi.fn(),
      isDestroyed: () => window.destroyed,
      webContents: { send: vi.fn() },
    };
    windows.push(window);
    return window;
  });
  const notifications: FakeNotification[] = [];
  const createNotification = vi.fn((options: { title: string; body: string }) => {
    const notification = new FakeNotification(options);
    notifications.push(notification);
    return notification;
  });
  const startServer = vi.fn(async (_hooks: DesktopServerHooks) => server);
  const deps = {
    app,
    ipcMain,
    shell,
    clipboard,
    browserSession: () => session,
    createWindow,
    createNotification,
    startServer,
    platform: options.platform ?? 'linux',
    processLike,
  } as unknown as DesktopDeps;
  return { app, ipcMain, session, shell, server, windows, notifications, createWindow, startServer, processLike, deps };
}

describe('runDesktop', () => {
  it('starts the server, hardens the session, registers the bridge and opens the window on the panel page', async () => {
    const t = setup();
    await runDesktop(t.deps);
    expect(t.app.calls.slice(0, 2)).toEqual(['enableSandbox', 'setName:ptydeck']);
    expect(t.startServer).toHaveBeenCalledTimes(1);
    // No ticket in the window's URL: the renderer gets the panel token from the bridge.
    expect(t.windows.map((w) => w.url)).toEqual([`${url}/`]);
    expect(t.session.receive(`${url}/`).responseHeaders?.['Content-Security-Policy']).toEqual([contentSecurityPolicy(url)]);
    await expect(t.ipcMain.invoke(bridgeChannels.connection, { url: `${url}/` })).resolves.toEqual({ url, token: 'p4n3l' });
    await expect(t.ipcMain.invoke(bridgeChannels.connection, { url: 'http://127.0.0.1:4001/' })).rejects.toThrow(/untrusted_sender/);
  });

  it('guards every web contents created later against leaving the server origin', async () => {
    const t = setup();
    await runDesktop(t.deps);
    const contents = new FakeContents();
    t.app.emit('web-contents-created', {}, contents);
    expect(contents.windowOpenHandler?.({ url: 'https://example.com/' })).toEqual({ action: 'deny' });
    expect(contents.navigate('will-navigate', 'https://example.com/')).toBe(true);
    expect(contents.navigate('will-navigate', `${url}/`)).toBe(false);
  });

  it('closes the server before quitting, on quit, on the last window closing and on SIGTERM', async () => {
    for (const trigger of ['quit', 'window-all-closed', 'SIGTERM'] as const) {
      const t = setup();
      await runDesktop(t.deps);
      if (trigger === 'quit') t.app.quit();
      else if (trigger === 'window-all-closed') t.app.emit('window-all-closed');
      else t.processLike.emit('SIGTERM');
      await vi.waitFor(() => expect(t.app.quitted, trigger).toBe(true));
      expect(t.server.close, trigger).toHaveBeenCalledTimes(1);
      expect(t.server.closed, trigger).toBe(true);
      // Once quit, the app stops turning signals into quits.
      expect(t.processLike.listenerCount('SIGINT') + t.processLike.listenerCount('SIGTERM'), trigger).toBe(0);
    }
  });

  it('keeps running without windows on macOS and reopens the window on activate', async () => {
    const t = setup({ platform: 'darwin' });
    await runDesktop(t.deps);
    t.app.emit('window-all-closed');
    expect(t.app.quitted).toBe(false);
    expect(t.app.calls).not.toContain('quit');
    t.windows[0]!.destroyed = true;
    t.app.emit('activate');
    expect(t.windows).toHaveLength(2);
  });

  it('brings the window forward instead of handing out a link when the server cannot tell who asks', async () => {
    const t = setup();
    await runDesktop(t.deps);
    const hooks = t.startServer.mock.calls[0]![0];
    expect(hooks.presentPanelLink(`${url}/#ticket=one-time`)).toBe('the ptydeck window');
    expect(t.windows).toHaveLength(1);
    expect(t.windows[0]!.focus).toHaveBeenCalled();
  });

  it('focuses the existing window when a second instance starts', async () => {
    const t = setup();
    await runDesktop(t.deps);
    t.app.emit('second-instance');
    expect(t.windows).toHaveLength(1);
    expect(t.windows[0]!.focus).toHaveBeenCalled();
  });

  it("shows the app's notifications; a click brings the window forward and names the session to its page", async () => {
    const t = setup();
    await runDesktop(t.deps);
    const request = { title: 'codex needs input', body: 'make build: Continue? [y/N]', target: 'session:s-1' };
    await t.ipcMain.invoke(bridgeChannels.notify, { url: `${url}/` }, request);
    await expect(t.ipcMain.invoke(bridgeChannels.notify, { url: 'http://127.0.0.1:4001/' }, request)).rejects.toThrow(/untrusted_sender/);
    expect(t.notifications.map((n) => [n.options, n.shown])).toEqual([[{ title: request.title, body: request.body }, true]]);

    const window = t.windows[0]!;
    window.minimized = true;
    expect(window.focus).not.toHaveBeenCalled();
    t.notifications[0]!.emit('click');
    expect(window.restore).toHaveBeenCalled();
    expect(window.focus).toHaveBeenCalled();
    expect(window.webContents.send.mock.calls).toEqual([[bridgeChannels.notificationClick, 'session:s-1']]);
  });

  it('a notification clicked after its window was closed tells no page', async () => {
    const t = setup({ platform: 'darwin' });
    await runDesktop(t.deps);
    await t.ipcMain.invoke(bridgeChannels.notify, { url: `${url}/` }, { title: 't', body: 'b', target: 'session:s-1' });
    t.windows[0]!.destroyed = true;
    t.notifications[0]!.emit('click');
    expect(t.windows[0]!.focus).not.toHaveBeenCalled();
    expect(t.windows[0]!.webContents.send).not.toHaveBeenCalled();
  });

  it('starts no server of its own when another instance holds the lock', async () => {
    const t = setup({ singleInstance: false });
    await expect(runDesktop(t.deps)).resolves.toBeNull();
    expect(t.startServer).not.toHaveBeenCalled();
    expect(t.createWindow).not.toHaveBeenCalled();
    expect(t.app.quitted).toBe(true);
  });
});
