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
}

/** The IPC channel of each bridge function; main and preload both hold a value of this type. */
export interface BridgeChannels {
  connection: 'ptydeck:connection';
  openExternal: 'ptydeck:open-external';
}

/** The name the preload exposes the bridge under: `window.ptydeck`. */
export type BridgeGlobalName = 'ptydeck';
