/**
 * Origin checks shared by every guard in the main process.
 *
 * The window only ever shows the core's local server, so "trusted" means exactly one
 * origin: the server's `http://127.0.0.1:PORT`. Comparing parsed origins (never string
 * prefixes) keeps `http://127.0.0.1:4000.evil.example` and `http://127.0.0.1:40000`
 * out when the app lives at `http://127.0.0.1:4000`.
 */

/** The origin of `url`, or null when it does not parse or has an opaque origin (data:, file:, about:). */
export function originOf(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  // URL gives the string 'null' for opaque origins; treat it as no origin at all so that
  // two opaque origins never compare equal.
  return parsed.origin === 'null' ? null : parsed.origin;
}

/** Whether `url` belongs to `appOrigin` (exact scheme, host and port). */
export function isAppUrl(url: string, appOrigin: string): boolean {
  const origin = originOf(url);
  return origin !== null && origin === appOrigin;
}
