import { z } from 'zod';

/**
 * POST without credentials, from a process outside every session (`ptydeck
 * stop`), as /ticket is: ends the host and every session in it. `?force=1`
 * also when agents' sessions are running; without it they are listed instead.
 * `?ifIdle=1` only when nothing runs in it (no running session, no chat): how a
 * newer client retires an older host that nobody would miss.
 * Node built-ins and zod only, so the CLI can load it without the server.
 */
export const STOP_PATH = '/stop';

export const AgentSessionSummary = z.object({
  id: z.string(),
  ownerName: z.string().nullable(),
  command: z.string(),
  /** What the panel's tab and `ptydeck ls` call it; absent from a host that predates it. */
  title: z.string().optional(),
});
export type AgentSessionSummary = z.infer<typeof AgentSessionSummary>;

/**
 * What a host stopped by `ptydeck stop` sends each `ptydeck mcp` connected to
 * it, on the MCP session's event stream, before it ends them: a bridge told so
 * starts no host by itself (a stop is the developer's decision) and joins the
 * next one the developer starts. A killed host sends nothing: its bridges start
 * a new one.
 */
export const HOST_STOPPED_NOTIFICATION = 'notifications/ptydeck/stopped';

export const StopAnswer = z.union([
  /**
   * 200: the host is stopping; `sessions` running sessions and `chats` chats end with it; `agents` MCP clients
   * (chats' own aside) were connected (absent from a host that predates it).
   */
  z.object({ stopping: z.literal(true), pid: z.number().int(), sessions: z.number().int(), chats: z.number().int(), agents: z.number().int().optional() }),
  /** 409: agents' sessions are running and force was not asked for. */
  z.object({ error: z.string(), agentSessions: z.array(AgentSessionSummary) }),
  /** 403, 409 for ifIdle with something running, and other refusals. */
  z.object({ error: z.string() }),
]);
export type StopAnswer = z.infer<typeof StopAnswer>;
