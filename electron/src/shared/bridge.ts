/**
 * The bridge between the sandboxed renderer and the Electron main process.
 *
 * One function per capability, never `ipcRenderer` itself: the preload exposes exactly
 * this object as `window.ptydeck`, and each function is one `ipcRenderer.invoke` whose
 * sender the main process validates before answering. Type-only on purpose: the sandboxed
 * preload may require nothing but 'electron', so it cannot import values from here; it
 * types its channel table against `BridgeChannels`, which makes a renamed channel a
 * compile error on both sides instead of a silent hang.
 */

/** What the renderer needs to reach the core's local server from inside the window. */
export interface BridgeConnection {
  /** The server's origin, e.g. `http://127.0.0.1:43117`. */
  url: string;
  /**
   * The per-launch panel token (panel scope: every session), which only the main process
   * holds; the renderer sends it as the WebSocket subprotocol `ptydeck.token.<token>`.
   */
  token: string;
}

/** A desktop notification the renderer asks for: an agent waits for input while the window is elsewhere. */
export interface DeskNotificationRequest {
  title: string;
  body: string;
  /**
   * What a click on the notification brings forward, opaque to main: the renderer's
   * own name for it (a session's tab or a chat), handed back to it on the click.
   */
  target: string;
}

/**
 * `window.ptydeck` in the Electron window; absent in a plain browser (web mode).
 * The renderer declares the same shape in packages/app/src/bridge.ts (where openExternal
 * is optional, so this stricter type satisfies it); change both together.
 */
export interface PtydeckBridge {
  /** The local server's URL and token. Rejects if the calling frame is not the app's origin. */
  connection(): Promise<BridgeConnection>;
  /**
   * Opens an http(s) URL in the user's browser. Links in terminal output (and OSC 8
   * hyperlinks) are untrusted, so the main process re-validates the URL and rejects
   * anything but http: and https: without credentials.
   */
  openExternal(url: string): Promise<void>;
  /**
   * Shows a desktop notification (Electron's Notification, in the main process). Main
   * checks the sender and the fields; clicking the notification focuses the window and
   * calls the `onNotificationClick` listeners with its target.
   */
  notify(notification: DeskNotificationRequest): Promise<void>;
  /** Listens for clicks on the notifications this window showed; returns the unsubscribe. */
  onNotificationClick(listener: (target: string) => void): () => void;
  /**
   * The system clipboard's text, for the terminal's Paste. The window is granted no
   * permission (clipboard-read included), so the page reads it through main, which checks
   * the sender as for every call.
   */
  readClipboard(): Promise<string>;
  /** Puts text on the system clipboard (a terminal's Copy); main checks it is a string of bounded size. */
  writeClipboard(text: string): Promise<void>;
}

/** The IPC channel of each bridge function; main and preload both hold a value of this type. */
export interface BridgeChannels {
  connection: 'ptydeck:connection';
  openExternal: 'ptydeck:open-external';
  notify: 'ptydeck:notify';
  /** Main to renderer: a notification was clicked (its one argument is the notification's target). */
  notificationClick: 'ptydeck:notification-click';
  readClipboard: 'ptydeck:read-clipboard';
  writeClipboard: 'ptydeck:write-clipboard';
}

/** The name the preload exposes the bridge under: `window.ptydeck`. */
export type BridgeGlobalName = 'ptydeck';
