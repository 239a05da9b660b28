/**
 * The Content-Security-Policy the window enforces on top of whatever the server sends.
 *
 * The renderer is a Vite build served by the local server: module scripts and
 * stylesheets from 'self', a WebSocket back to the same host and port, nothing else.
 * style-src needs 'unsafe-inline' because xterm.js injects <style> elements and Solid
 * sets style attributes; scripts get no such allowance, which is what matters.
 * 'wasm-unsafe-eval' lets the replay's player (asciinema's) compile its bundled
 * WebAssembly terminal; it allows no eval of JavaScript text.
 */
import type { OnHeadersReceivedListenerDetails, HeadersReceivedResponse } from 'electron';
import { originOf } from './origin.js';

/** The policy for the app at `appOrigin` (e.g. `http://127.0.0.1:43117`). */
export function contentSecurityPolicy(appOrigin: string): string {
  const url = new URL(appOrigin);
  // CSP3 lets 'self' match ws: on the same host, but older engines did not; naming the
  // exact WebSocket origin costs nothing and survives either reading.
  const wsOrigin = `${url.protocol === 'https:' ? 'wss:' : 'ws:'}//${url.host}`;
  return [
    "default-src 'none'",
    "script-src 'self' 'wasm-unsafe-eval'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self' ${wsOrigin}`,
    "worker-src 'self'",
    "manifest-src 'self'",
    "frame-src 'none'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * Response headers with our policy added. The server's own CSP header is kept: several
 * policies are all enforced, so adding ours can only narrow what the page may do.
 * Responses from any other origin pass through untouched (the window never shows them).
 */
export function withContentSecurityPolicy(
  details: Pick<OnHeadersReceivedListenerDetails, 'url' | 'responseHeaders'>,
  appOrigin: string,
): HeadersReceivedResponse {
  if (originOf(details.url) !== appOrigin) return {};
  const headers: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(details.responseHeaders ?? {})) {
    headers[name] = [...value];
  }
  // Header names arrive in whatever case the server used; append to the existing entry
  // rather than adding a second key that Electron would merge unpredictably.
  const existing = Object.keys(headers).find((name) => name.toLowerCase() === 'content-security-policy');
  const key = existing ?? 'Content-Security-Policy';
  headers[key] = [...(headers[key] ?? []), contentSecurityPolicy(appOrigin)];
  return { responseHeaders: headers };
}
