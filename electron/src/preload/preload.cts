/**
 * The sandboxed preload: exposes `window.ptydeck` and nothing else.
 *
 * Sandboxed preloads are CommonJS and may require only 'electron', so this file is
 * self-contained: the channel table is repeated here and typed against the shared
 * BridgeChannels, which makes a mismatch with the main process a compile error.
 * Each function is one invoke; `ipcRenderer` itself never crosses into the page.
 */
import electron = require('electron');
import type { BridgeChannels, BridgeGlobalName, DeskNotificationRequest, PtydeckBridge } from '../shared/bridge.js';

const channels: BridgeChannels = {
  connection: 'ptydeck:connection',
  openExternal: 'ptydeck:open-external',
  notify: 'ptydeck:notify',
  notificationClick: 'ptydeck:notification-click',
  readClipboard: 'ptydeck:read-clipboard',
  writeClipboard: 'ptydeck:write-clipboard',
};

const bridge: PtydeckBridge = {
  connection: () => electron.ipcRenderer.invoke(channels.connection),
  // Passed through unchanged: the main process is the one place that validates it, and a
  // non-string there gets a clear "must be a string" error rather than a coerced URL.
  openExternal: (url: string) => electron.ipcRenderer.invoke(channels.openExternal, url),
  // Passed through too: main validates every field.
  notify: (notification: DeskNotificationRequest) => electron.ipcRenderer.invoke(channels.notify, notification),
  // The page gets the session id and nothing else: never the IPC event, whose sender reaches ipcRenderer.
  onNotificationClick: (listener: (target: string) => void) => {
    const forward = (_event: unknown, target: unknown) => {
      if (typeof target === 'string') listener(target);
    };
    electron.ipcRenderer.on(channels.notificationClick, forward);
    return () => {
      electron.ipcRenderer.removeListener(channels.notificationClick, forward);
    };
  },
  readClipboard: () => electron.ipcRenderer.invoke(channels.readClipboard),
  // Passed through: main checks the type and the size.
  writeClipboard: (text: string) => electron.ipcRenderer.invoke(channels.writeClipboard, text),
};

const globalName: BridgeGlobalName = 'ptydeck';
electron.contextBridge.exposeInMainWorld(globalName, bridge);
