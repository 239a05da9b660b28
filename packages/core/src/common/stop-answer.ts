// What /stop answers (stop-protocol.ts), one schema for the host that sends it and `ptydeck stop` that reads it.
import { z } from 'zod';

export const AgentSessionSummary = z.object({
  id: z.string(),
  ownerName: z.string().nullable(),
  command: z.string(),
  /** What the panel's tab and `ptydeck ls` call it; absent from a host that predates it. */
  title: z.string().optional(),
});
export type AgentSessionSummary = z.infer<typeof AgentSessionSummary>;

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
