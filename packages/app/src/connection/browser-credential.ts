import { TICKET_EXCHANGE_PATH, TICKET_FRAGMENT_KEY } from '@ptydeck/contract';

/**
 * The panel token in web mode. A panel link carries a one-time ticket in its
 * fragment (never sent to a server, never in a request log); the page takes it
 * out of the address bar at once, trades it for the panel token (POST, so the
 * browser adds this page's Origin, which the server checks), and keeps the
 * token in sessionStorage. sessionStorage belongs to one origin, port included:
 * a server on another port of 127.0.0.1 never sees it (unlike a cookie, which
 * browsers send to every port of a host), two ptydecks in one browser keep
 * theirs apart, and a reload finds it again.
 */
export const PANEL_TOKEN_STORAGE_KEY = 'ptydeck.panelToken';

/** What the page needs from the browser; a plain object stands in for it in tests. */
export interface CredentialPage {
  location: Pick<Location, 'hash' | 'pathname' | 'search'>;
  history: Pick<History, 'replaceState'>;
  storage: Pick<Storage, 'getItem' | 'setItem'>;
  fetch: (input: string, init: RequestInit) => Promise<Pick<Response, 'ok' | 'status' | 'json'>>;
}

export type BrowserCredential = { kind: 'token'; token: string } | { kind: 'missing'; reason: string };

/** How a page without a credential gets one. */
export const HOW_TO_GET_IN = 'Run `ptydeck url` in a terminal of your own (not one inside ptydeck) and open the link it prints.';

/** The token travels in a WebSocket subprotocol, which allows only these characters. */
const TOKEN_PATTERN = /^[A-Za-z0-9._~-]+$/;

/**
 * Takes the one-time ticket out of the address bar (so neither history nor a
 * copied URL keeps it) and returns it; null when the page was opened without one.
 * Call it once, before anything else reads the location.
 */
export function takeTicket(page: Pick<CredentialPage, 'location' | 'history'>): string | null {
  const ticket = new URLSearchParams(page.location.hash.slice(1)).get(TICKET_FRAGMENT_KEY);
  if (ticket === null) return null;
  page.history.replaceState(null, '', page.location.pathname + page.location.search);
  return ticket;
}

/**
 * Trades the ticket for the panel token and keeps it, or finds the token kept
 * by an earlier load of this tab. A spent or expired link falls back to a kept
 * token; without either the page has no way in, and says why.
 */
export async function browserCredential(page: CredentialPage, ticket: string | null): Promise<BrowserCredential> {
  let failure: string | undefined;
  if (ticket) {
    try {
      const response = await page.fetch(TICKET_EXCHANGE_PATH, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ ticket }),
        credentials: 'omit',
        cache: 'no-store',
      });
      const body = (await response.json().catch(() => ({}))) as { token?: unknown; error?: unknown };
      if (response.ok && typeof body.token === 'string' && TOKEN_PATTERN.test(body.token)) {
        page.storage.setItem(PANEL_TOKEN_STORAGE_KEY, body.token);
        return { kind: 'token', token: body.token };
      }
      failure = typeof body.error === 'string' ? body.error : `ptydeck refused the link (HTTP ${response.status}).`;
    } catch (error) {
      failure = `ptydeck did not answer (${error instanceof Error ? error.message : String(error)}).`;
    }
  }
  const kept = page.storage.getItem(PANEL_TOKEN_STORAGE_KEY);
  if (kept !== null && TOKEN_PATTERN.test(kept)) return { kind: 'token', token: kept };
  return { kind: 'missing', reason: failure ?? 'This page was opened without a ptydeck link.' };
}
