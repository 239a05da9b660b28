// The host's /stop route and its notice to agents: what `ptydeck stop`, the bridge and the host agree on.
/**
 * POST without credentials, from a process outside every session (`ptydeck
 * stop`), as /ticket is: ends the host and every session in it. `?force=1`
 * also when agents' sessions are running; without it they are listed instead.
 * `?ifIdle=1` only when nothing runs in it (no running session, no chat): how a
 * newer client retires an older host that nobody would miss.
 * No schema here (those are in stop-answer.ts): every client loads this, and needs no zod for it.
 */
export const STOP_PATH = '/stop';

/**
 * What a host stopped by `ptydeck stop`, SIGTERM or SIGINT sends each `ptydeck
 * mcp` connected to it, on the MCP session's event stream, before it ends
 * them: a bridge told so starts no host by itself (a stop is the developer's
 * decision) and joins the next one the developer starts. A killed host
 * (SIGKILL, a crash) sends nothing: its bridges start a new one.
 */
export const HOST_STOPPED_NOTIFICATION = 'notifications/ptydeck/stopped';
