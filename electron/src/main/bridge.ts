/**
 * The main-process side of `window.ptydeck`: one `ipcMain.handle` per bridge function.
 *
 * Every handler first validates the sender. The token in `connection()` unlocks every
 * shell on the machine, so only the top-level frame of a page served from the app's own
 * origin may have it: not a subframe, not a page the window was somehow navigated to,
 * not a frame that has already gone away.
 */
import type { IpcMain, IpcMainInvokeEvent } from 'electron';
import type { BridgeChannels, BridgeConnection, DeskNotificationRequest } from '../shared/bridge.js';
import { BridgeError } from './bridge-error.js';
import { parseExternalUrl } from './external-url.js';
import { parseNotification } from './notification.js';
import { isAppUrl } from './origin.js';

/** The channel table; the preload holds an identical one, checked by the same type. */
export const bridgeChannels: BridgeChannels = {
  connection: 'ptydeck:connection',
  openExternal: 'ptydeck:open-external',
  notify: 'ptydeck:notify',
  notificationClick: 'ptydeck:notification-click',
  readClipboard: 'ptydeck:read-clipboard',
  writeClipboard: 'ptydeck:write-clipboard',
};

/**
 * The most a terminal's Copy puts on the clipboard: a whole 10,000-line scrollback of
 * wide lines fits; a renderer cannot make main copy gigabytes.
 */
export const MAX_CLIPBOARD_TEXT = 8 * 1024 * 1024;

/** What the bridge hands out and does; main.ts wires these to the server and `shell`. */
export interface BridgeBackend {
  /** The server's origin; the only origin allowed to call the bridge. */
  appOrigin: string;
  connection(): BridgeConnection;
  /** Opens an already-validated http(s) URL (in production `shell.openExternal`). */
  openExternal(url: string): Promise<void>;
  /** Shows an already-validated notification (in production Electron's Notification, see notification.ts). */
  notify(notification: DeskNotificationRequest): void;
  /** The system clipboard's text (Electron's `clipboard` in production). */
  clipboard: { readText(): string | Promise<string>; writeText(text: string): void | Promise<void> };
}

/** The part of an invoke event the check reads; a plain object satisfies it in tests. */
export type SenderEvent = Pick<IpcMainInvokeEvent, 'senderFrame'>;

/** Throws BridgeError('untrusted_sender') unless the message comes from the app origin's top-level frame. */
export function assertTrustedSender(event: SenderEvent, appOrigin: string): void {
  // senderFrame is null once the frame navigated away or was destroyed; a late message
  // from it must not be answered on behalf of whatever replaced it.
  const frame = event.senderFrame;
  if (frame === null) {
    throw new BridgeError('untrusted_sender', 'the sending frame is gone');
  }
  if (frame.parent !== null) {
    throw new BridgeError('untrusted_sender', 'only the top-level frame may use the bridge');
  }
  if (!isAppUrl(frame.url, appOrigin)) {
    throw new BridgeError('untrusted_sender', 'the sending frame is not the ptydeck app');
  }
}

/** Registers the bridge handlers; the returned function removes them. */
export function registerBridge(ipcMain: Pick<IpcMain, 'handle' | 'removeHandler'>, backend: BridgeBackend): () => void {
  ipcMain.handle(bridgeChannels.connection, (event) => {
    assertTrustedSender(event, backend.appOrigin);
    return backend.connection();
  });
  ipcMain.handle(bridgeChannels.openExternal, async (event, input: unknown) => {
    assertTrustedSender(event, backend.appOrigin);
    const url = parseExternalUrl(input);
    // Pass the normalised href, not the renderer's string, so what was checked is what opens.
    await backend.openExternal(url.href);
  });
  ipcMain.handle(bridgeChannels.notify, (event, input: unknown) => {
    assertTrustedSender(event, backend.appOrigin);
    backend.notify(parseNotification(input));
  });
  ipcMain.handle(bridgeChannels.readClipboard, (event) => {
    assertTrustedSender(event, backend.appOrigin);
    return backend.clipboard.readText();
  });
  ipcMain.handle(bridgeChannels.writeClipboard, (event, input: unknown) => {
    assertTrustedSender(event, backend.appOrigin);
    if (typeof input !== 'string') throw new BridgeError('invalid_clipboard_text', 'the clipboard text must be a string');
    if (input.length > MAX_CLIPBOARD_TEXT) throw new BridgeError('invalid_clipboard_text', `the clipboard text is over ${MAX_CLIPBOARD_TEXT} characters`);
    return backend.clipboard.writeText(input);
  });
  return () => {
    ipcMain.removeHandler(bridgeChannels.connection);
    ipcMain.removeHandler(bridgeChannels.readClipboard);
    ipcMain.removeHandler(bridgeChannels.writeClipboard);
    ipcMain.removeHandler(bridgeChannels.openExternal);
    ipcMain.removeHandler(bridgeChannels.notify);
  };
}
