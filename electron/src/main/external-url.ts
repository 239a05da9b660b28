/**
 * Validation for `openExternal`: the one path from the window to the user's browser.
 *
 * Links come from terminal output and OSC 8 hyperlinks, which any program in any session
 * can print, so the URL is hostile until proven otherwise: only http: and https: go out
 * (no file:, javascript:, custom schemes that launch local handlers, or smb: that leaks
 * credentials), and never with embedded credentials.
 */
import { BridgeError } from './bridge-error.js';

/** Longer than any real link; bounds what a hostile renderer can make the main process parse. */
const MAX_URL_LENGTH = 8192;

/** Parses and checks a URL the renderer asked to open; throws BridgeError('invalid_url') naming the problem. */
export function parseExternalUrl(input: unknown): URL {
  if (typeof input !== 'string') {
    throw new BridgeError('invalid_url', `openExternal: url must be a string, got ${typeof input}`);
  }
  if (input.length > MAX_URL_LENGTH) {
    throw new BridgeError('invalid_url', `openExternal: url is longer than ${MAX_URL_LENGTH} characters`);
  }
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new BridgeError('invalid_url', 'openExternal: url does not parse as an absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new BridgeError('invalid_url', `openExternal: only http: and https: URLs open externally, not ${url.protocol}`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new BridgeError('invalid_url', 'openExternal: URLs with embedded credentials are refused');
  }
  if (url.hostname === '') {
    throw new BridgeError('invalid_url', 'openExternal: url has no host');
  }
  return url;
}
