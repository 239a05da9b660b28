// The host's routes and the numbers a client and the host agree on: no schema here, so a client that
// needs only these (`ptydeck url`, `--version`) loads no zod.

/** Path of the panel WebSocket on the local server. */
export const PANEL_WS_PATH = '/panel';
/**
 * GET answers 204 when the request carries the panel's credentials, 401 when
 * not. A browser hides why a WebSocket handshake failed; this lets a page
 * without the cookie say how to get one instead of retrying forever.
 */
export const PANEL_ACCESS_PATH = '/panel/access';
/** Path of MCP over Streamable HTTP on the local server. */
export const MCP_PATH = '/mcp';
/**
 * What a ptydeck host and its clients (`ptydeck mcp`, `ptydeck stop`, the
 * window) must agree on: the discovery file, the routes they call and what
 * they mean. Not the release version: raise it only when a client of one
 * number cannot work with a host of another, so that a mismatch is one clear
 * line instead of a hang or a garbled screen. A discovery file without one is 0.
 */
export const HOST_PROTOCOL_VERSION = 1;
/**
 * A panel authenticates by offering the subprotocol `TOKEN_SUBPROTOCOL_PREFIX +
 * panel token` (browsers cannot set headers on a WebSocket). The panel token
 * lives only in the server's memory; the agent token in server.json does not
 * open the panel.
 */
export const TOKEN_SUBPROTOCOL_PREFIX = 'ptydeck.token.';
/** A subprotocol a panel may offer beside its token so the server echoes this instead of the token. */
export const PANEL_SUBPROTOCOL = 'ptydeck.v1';
/**
 * A panel link is `<server>/#ticket=<one-time ticket>`: in the fragment, which a
 * browser never sends to any server nor writes to a request log. The page
 * trades the ticket for the panel token by POSTing `{ ticket }` as JSON here.
 */
export const TICKET_FRAGMENT_KEY = 'ticket';
/**
 * POST without credentials, from a process outside every session (`ptydeck url`):
 * answers {url} with a fresh one-time panel link, or {shownIn} where the link
 * was shown instead when the host cannot name the asker, or {error}.
 */
export const TICKET_PATH = '/ticket';
export const TICKET_EXCHANGE_PATH = '/ticket/exchange';
/**
 * POST without credentials, from a process outside every session, judged as
 * /ticket judges (`ptydeck ls`, `ptydeck status`): answers the panel's
 * snapshot message (every session, agent and the host's facts), read only, in
 * the one request that proves the asker, instead of a ticket, its exchange
 * and a panel socket; or {error}.
 */
export const SNAPSHOT_PATH = '/snapshot';
/**
 * A client judged by who asks (/ticket, /snapshot, /stop) names its own pid in
 * this header; the host then verifies that this process holds the connection
 * (its descriptors, by the kernel's word) and judges it, instead of searching
 * every process for the holder. A claim that does not hold is refused.
 */
export const ASKER_PID_HEADER = 'ptydeck-asker-pid';
/**
 * A panel handshake's query parameter naming a session, by its id or a prefix
 * of one (as `ptydeck attach` takes it, matchSession): the host attaches it as
 * the socket opens, as if an `attach` message without a cursor had followed
 * the snapshot, so its resync comes without that message's round trip (bench
 * figure 12). It grants nothing an `attach` message would not.
 */
export const PANEL_ATTACH_PARAM = 'attach';
/**
 * The 101's header naming the session the host attached for
 * PANEL_ATTACH_PARAM. Absent when the parameter matched no one session, or
 * from a host older than the parameter: the client then sends `attach`.
 */
export const PANEL_ATTACHED_HEADER = 'ptydeck-attached';
