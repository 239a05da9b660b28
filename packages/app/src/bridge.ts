/**
 * What the Electron preload exposes on `window.ptydeck` through contextBridge.
 * In a browser it is absent: the page trades the one-time ticket in its link's
 * fragment for the panel token (connection/browser-credential.ts).
 *
 * The preload must provide exactly this shape (one function per capability):
 */
export interface PtydeckBridge {
  /**
   * Where the local server is and the per-launch panel token. `url` is the server's
   * base URL (e.g. "http://127.0.0.1:PORT") or directly its ws(s):// panel URL;
   * the renderer opens `<ws url>/panel` with subprotocol `ptydeck.token.<token>`.
   * Called again before every reconnect.
   */
  connection(): Promise<{ url: string; token: string }>;
  /**
   * Optional: open an http(s) link from terminal output in the system browser.
   * Links are untrusted; main must re-check the scheme before shell.openExternal.
   */
  openExternal?(url: string): Promise<void> | void;
  /**
   * Optional: a desktop notification from the main process (an agent waits for input
   * while the window is not focused). Clicking it focuses the window, and
   * `onNotificationClick` listeners get its target (see attention/notify-target.ts).
   */
  notify?(notification: { title: string; body: string; target: string }): Promise<void>;
  /** Optional: called with the session id of a clicked notification; returns the unsubscribe. */
  onNotificationClick?(listener: (target: string) => void): () => void;
  /** Optional: the system clipboard's text, read by the main process (the window is granted no clipboard permission). */
  readClipboard?(): Promise<string>;
  /** Optional: puts text on the system clipboard, through the main process. */
  writeClipboard?(text: string): Promise<void>;
}

/** The bridge if this renderer runs inside ptydeck's Electron window. */
export function getBridge(): PtydeckBridge | null {
  const candidate = (window as unknown as { ptydeck?: unknown }).ptydeck;
  if (typeof candidate !== 'object' || candidate === null) return null;
  const bridge = candidate as Partial<PtydeckBridge>;
  return typeof bridge.connection === 'function' ? (bridge as PtydeckBridge) : null;
}

/** Checks what the bridge handed back: it crosses a process boundary. */
export function parseBridgeConnection(value: unknown): { url: string; token: string } {
  if (typeof value !== 'object' || value === null) throw new TypeError('bridge connection() returned no object');
  const { url, token } = value as { url?: unknown; token?: unknown };
  if (typeof url !== 'string' || url.length === 0) throw new TypeError('bridge connection().url must be a non-empty string');
  if (typeof token !== 'string' || !/^[A-Za-z0-9._~-]+$/.test(token)) {
    // The token travels in a WebSocket subprotocol, which allows only token characters.
    throw new TypeError('bridge connection().token must be a non-empty URL-safe string');
  }
  return { url, token };
}
