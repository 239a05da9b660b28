// Where the panel socket is and with which credentials, in a browser or in the desktop app, and whether the page
// may open it.
import { PANEL_ACCESS_PATH, PANEL_SUBPROTOCOL, PANEL_WS_PATH, TOKEN_SUBPROTOCOL_PREFIX } from '@ptydeck/contract';

/** What a check of the page's access found; see PanelClientOptions.checkAccess. */
export type AccessCheck = 'allowed' | 'unauthorized' | 'unreachable';

/** Everything needed to open the panel socket. */
export interface PanelEndpoint {
  url: string;
  protocols: string[];
}

/** Browser mode: same origin as the page, with the panel token the page traded its ticket for. */
export function sameOriginEndpoint(location: { protocol: string; host: string }, token: string): PanelEndpoint {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return { url: `${scheme}//${location.host}${PANEL_WS_PATH}`, protocols: tokenProtocols(token) };
}

/**
 * Browser mode: asks the page's own server whether this page's panel token
 * opens the panel socket (a browser hides why a WebSocket handshake failed).
 * No answer at all means the server is gone (or moved to another port); any
 * answer but 401 means the token is not the problem.
 */
export async function checkSameOriginAccess(
  fetchFn: (path: string, init: RequestInit) => Promise<{ status: number }>,
  token: string,
): Promise<AccessCheck> {
  let status: number;
  try {
    ({ status } = await fetchFn(PANEL_ACCESS_PATH, { cache: 'no-store', credentials: 'omit', headers: { Authorization: `Bearer ${token}` } }));
  } catch {
    return 'unreachable';
  }
  return status === 401 ? 'unauthorized' : 'allowed';
}

/** Electron mode: the preload names the server and hands over the token. */
export function tokenEndpoint(serverUrl: string, token: string): PanelEndpoint {
  const url = new URL(serverUrl);
  if (url.protocol === 'http:') url.protocol = 'ws:';
  else if (url.protocol === 'https:') url.protocol = 'wss:';
  else if (url.protocol !== 'ws:' && url.protocol !== 'wss:') throw new TypeError(`unsupported server URL scheme ${url.protocol}`);
  url.pathname = PANEL_WS_PATH;
  url.search = '';
  url.hash = '';
  return { url: url.toString(), protocols: tokenProtocols(token) };
}

/** The token, and the protocol the server echoes instead of it. */
function tokenProtocols(token: string): string[] {
  return [PANEL_SUBPROTOCOL, `${TOKEN_SUBPROTOCOL_PREFIX}${token}`];
}
