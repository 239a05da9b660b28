/**
 * Navigation, window-open and permission guards.
 *
 * The window shows one thing, the app at the local server's origin. Terminal output is
 * untrusted (any program can print a link or an OSC 8 hyperlink), so nothing the page
 * does may take the window elsewhere, open a second window, embed a webview or ask for
 * a device; links reach the user's browser only through the bridge's `openExternal`,
 * which validates them in the main process.
 */
import type { Session, WebContents } from 'electron';
import { withContentSecurityPolicy } from './csp.js';
import { isAppUrl } from './origin.js';

/** The WebContents surface the guards use; a small fake satisfies it in tests. */
export type GuardedContents = Pick<WebContents, 'setWindowOpenHandler' | 'on'>;

/** Denies every window.open and every navigation or redirect that leaves `appOrigin`. */
export function guardWebContents(contents: GuardedContents, appOrigin: string): void {
  // Deny by default and without exception: the renderer opens links with the bridge.
  contents.setWindowOpenHandler(() => ({ action: 'deny' }));
  contents.on('will-navigate', (event) => {
    if (!isAppUrl(event.url, appOrigin)) event.preventDefault();
  });
  // will-frame-navigate also covers subframes, which CSP frame-src 'none' should already
  // prevent; checking here too means a CSP mistake does not become a navigation hole.
  contents.on('will-frame-navigate', (event) => {
    if (!isAppUrl(event.url, appOrigin)) event.preventDefault();
  });
  // A same-origin request the server answers with a redirect elsewhere is a navigation too.
  contents.on('will-redirect', (event) => {
    if (!isAppUrl(event.url, appOrigin)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => {
    event.preventDefault();
  });
}

/** The surface of Electron's (browser) Session the hardening uses. */
export type HardenedBrowserSession = Pick<Session, 'setPermissionRequestHandler' | 'setPermissionCheckHandler' | 'on'> & {
  webRequest: Pick<Session['webRequest'], 'onHeadersReceived'>;
};

/** Denies every permission and download, and adds the app's CSP to its responses. */
export function hardenBrowserSession(session: HardenedBrowserSession, appOrigin: string): void {
  // A terminal panel needs no camera, microphone, notifications, geolocation, HID, serial
  // or the like; answering no to all of them leaves nothing to misjudge.
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
  session.on('will-download', (event) => event.preventDefault());
  session.webRequest.onHeadersReceived((details, callback) => {
    callback(withContentSecurityPolicy(details, appOrigin));
  });
}
