/**
 * The desktop app's wiring: reach the sessions (a client of the user's ptydeck host, or
 * the core in-process where that cannot be: host-connection.ts), lock down every web
 * contents and the session, expose the bridge, open the window, and close what is ours
 * before quitting. Electron and the server come in as parameters so the whole sequence
 * runs in a unit test with fakes; main.ts passes the real ones.
 */
import type { App, BrowserWindow, Clipboard, IpcMain, Shell } from 'electron';
import { DisposableStore } from '@ptydeck/contract';
import { bridgeChannels, registerBridge } from './bridge.js';
import { guardWebContents, hardenBrowserSession, type GuardedContents, type HardenedBrowserSession } from './guards.js';
import { desktopNotifier, type NotifiedWindow, type ShownNotification } from './notification.js';
import { closeBeforeQuit, quitOnSignals } from './quit.js';
import { originOf } from './origin.js';

/** What the desktop app uses of the sessions' server: the host it joined, or a LocalServer it runs. */
export interface DesktopServer {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /**
   * The panel-scope token, held in this process's memory only and handed to the window's
   * renderer through the bridge. (The agent token in server.json does not open the panel.)
   */
  panelToken: string;
  /** Before quitting: a host client lets go (the host runs on); an in-process core ends its sessions. */
  close(): Promise<void>;
}

/** What the desktop asks of the server it starts. */
export interface DesktopServerHooks {
  /**
   * Where the server cannot tell which process asks for a panel link (`ptydeck url`
   * without Linux /proc), it hands out no link: the window, which already holds the
   * panel, comes forward, and the asker is told to look there.
   */
  presentPanelLink(url: string): string;
}

export interface DesktopDeps {
  app: Pick<
    App,
    'on' | 'once' | 'off' | 'quit' | 'exit' | 'whenReady' | 'enableSandbox' | 'setName' | 'requestSingleInstanceLock'
  >;
  ipcMain: Pick<IpcMain, 'handle' | 'removeHandler'>;
  shell: Pick<Shell, 'openExternal'>;
  /** The system clipboard (Electron's `clipboard`): the terminals' copy and paste go through the bridge. */
  clipboard: Pick<Clipboard, 'readText' | 'writeText'>;
  /** The session the window uses (session.defaultSession), available once the app is ready. */
  browserSession: () => HardenedBrowserSession;
  /** Creates and loads the window; window.ts's createMainWindow in production. */
  createWindow: (url: string) => Pick<BrowserWindow, 'isMinimized' | 'restore' | 'focus' | 'isDestroyed'> & NotifiedWindow;
  /** A desktop notification, not yet shown; `new Notification(options)` in production. */
  createNotification: (options: { title: string; body: string }) => ShownNotification;
  /** Joins the host, or starts the core in-process (host-connection.ts's connectDesktop in production). */
  startServer: (hooks: DesktopServerHooks) => Promise<DesktopServer>;
  platform?: NodeJS.Platform;
  processLike?: Pick<NodeJS.Process, 'on' | 'off'>;
}

export interface Desktop {
  server: DesktopServer;
}

/** Runs the app; resolves once the first window is open, or with null when another instance already runs. */
export async function runDesktop(deps: DesktopDeps): Promise<Desktop | null> {
  const { app } = deps;
  // Every renderer sandboxed, whatever a future window forgets to set.
  app.enableSandbox();
  app.setName('ptydeck');
  // One window per user: a second launch brings the first forward (and an in-process core
  // must not be started twice, overwriting the discovery file).
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return null;
  }

  let focusWindow: (() => void) | undefined;
  const server = await deps.startServer({
    presentPanelLink: () => {
      focusWindow?.();
      return 'the ptydeck window';
    },
  });
  // Once the app really quits, signals get their default meaning again: a second Ctrl-C
  // during Electron's own teardown should end the process, not call quit() once more.
  const untilQuit = new DisposableStore();
  untilQuit.add(closeBeforeQuit(app, server));
  untilQuit.add(quitOnSignals(app, deps.processLike));
  app.once('quit', () => untilQuit.dispose());

  const appOrigin = originOf(server.url);
  if (appOrigin === null) {
    throw new Error(`ptydeck: the local server reported an unusable url: ${server.url}`);
  }

  // Guard every web contents at birth, not just the window's: nothing created later
  // (a devtools-opened page, a future window) escapes the navigation rules.
  app.on('web-contents-created', (_event, contents: GuardedContents) => guardWebContents(contents, appOrigin));

  await app.whenReady();
  hardenBrowserSession(deps.browserSession(), appOrigin);
  // Set below, once the bridge the window's preload calls is in place.
  let window: ReturnType<DesktopDeps['createWindow']> | null = null;
  registerBridge(deps.ipcMain, {
    appOrigin,
    connection: () => ({ url: server.url, token: server.panelToken }),
    openExternal: (url) => deps.shell.openExternal(url),
    clipboard: { readText: () => deps.clipboard.readText(), writeText: (text) => deps.clipboard.writeText(text) },
    // A click focuses the window there is now (the first may have been closed and reopened on macOS).
    notify: desktopNotifier({ create: deps.createNotification, window: () => window, clickChannel: bridgeChannels.notificationClick }),
  });

  // The page needs no ticket: its renderer asks the bridge for the panel token.
  const pageUrl = `${appOrigin}/`;
  window = deps.createWindow(pageUrl);
  focusWindow = () => {
    const current = window;
    if (current === null || current.isDestroyed()) {
      window = deps.createWindow(pageUrl);
      return;
    }
    if (current.isMinimized()) current.restore();
    current.focus();
  };
  app.on('second-instance', focusWindow);
  // Closing the last window quits the app: a host client leaves the host and its sessions
  // running (the next launch, or a browser, shows them again); an in-process core ends them.
  // macOS keeps apps running without windows; the Dock icon brings the window back.
  if ((deps.platform ?? process.platform) === 'darwin') {
    app.on('activate', focusWindow);
    // Without a listener Electron quits when the last window closes; with one it does not.
    app.on('window-all-closed', () => {});
  } else {
    app.on('window-all-closed', () => app.quit());
  }
  return { server };
}
