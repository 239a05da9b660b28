/**
 * Links in terminal output are untrusted: a program can print any URL, and OSC 8
 * hyperlinks can hide one behind any text. Only plain http(s) URLs are opened,
 * and never with a handle back to this window.
 */
export function safeExternalUrl(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri.trim());
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  // Credentials in a link are a phishing staple ("https://bank.com@evil.example").
  if (url.username !== '' || url.password !== '') return null;
  return url.toString();
}

export interface LinkOpener {
  openExternal?(url: string): Promise<void> | void;
}

/** Opens a checked link through the Electron bridge if present, else a new browser tab with noopener. */
export function openSafeLink(uri: string, bridge: LinkOpener | null, open: (url: string, target: string, features: string) => unknown): boolean {
  const url = safeExternalUrl(uri);
  if (url === null) return false;
  if (bridge?.openExternal) void Promise.resolve(bridge.openExternal(url)).catch(() => undefined);
  else open(url, '_blank', 'noopener,noreferrer');
  return true;
}
