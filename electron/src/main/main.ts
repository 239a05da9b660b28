/**
 * Electron main entry: the real Electron modules and the user's ptydeck host (or, where
 * the host cannot give this process panel scope, the core in-process), handed to
 * runDesktop. Everything with a decision in it lives in the sibling modules and is unit-tested.
 */
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, clipboard, ipcMain, Notification, session, shell } from 'electron';
import { joinHostAsPanel, startHost } from '@ptydeck/core';
import { connectDesktop } from './host-connection.js';
import { runDesktop } from './desktop.js';
import { raiseFdLimit } from './fd-limit.js';
import { createMainWindow } from './window.js';

const here = dirname(fileURLToPath(import.meta.url));
// dist/main/main.js -> dist/preload/preload.cjs (compiled by tsconfig.preload.json)
const preloadPath = join(here, '..', 'preload', 'preload.cjs');

// Before the server exists: its connections and PTYs all take descriptors (see fd-limit.ts).
raiseFdLimit({ platform: process.platform, setFdLimit: process.setFdLimit?.bind(process) });

runDesktop({
  app,
  ipcMain,
  shell,
  clipboard,
  browserSession: () => session.defaultSession,
  createWindow: (url) => createMainWindow({ preloadPath, url }),
  createNotification: (options) => new Notification(options),
  startServer: connectDesktop({
    platform: process.platform,
    // The host's log says what it did; the app's own stderr says whether it had to start one.
    joinHost: () => joinHostAsPanel({ log: (line) => console.error(line) }),
    // The host's defaults are the desktop's: 127.0.0.1 on a free port, the discovery file
    // `ptydeck mcp` reads (so agents land in this window), and the renderer from packages/app/dist.
    // A desktop launch's cwd is often `/`: a chat's agent starts in the home directory instead.
    // As before the host existed: no host lock (a host may run beside it) and no session store.
    startInProcess: (hooks) =>
      startHost({ presentPanelLink: hooks.presentPanelLink, launchDir: homedir(), exclusive: false, persist: false }),
  }),
}).catch((error: unknown) => {
  console.error(`ptydeck: could not start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  // quit(), not exit(): if the server did start, before-quit still closes its sessions.
  app.quit();
});

