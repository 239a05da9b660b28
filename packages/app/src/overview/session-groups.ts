// Groups the overview's sessions by who they belong to (a connected agent, a chat, a disconnected agent or
// you) and, apart, those lost when the host restarted.
import type { AgentInfo, SessionInfo } from '@ptydeck/contract';

/** An agent whose MCP connection ended, with the shells it left behind (the core keeps them for the developer). */
export interface DisconnectedAgent {
  /** The connection id its sessions carry as `owner`. */
  owner: string;
  /** Its client name, as its sessions remember it. */
  name: string;
  /** Oldest first. */
  sessions: SessionInfo[];
  /** The ones still running: what "close all" ends. */
  running: SessionInfo[];
}

export interface SessionGroups {
  /**
   * The connected agents listed as such: every MCP connection but a chat's
   * (a chat's agent connects under its chat's owner id, and is listed with its chat).
   */
  agents: AgentInfo[];
  /** Sessions of each connected agent, by agent id. */
  byAgent: Map<string, SessionInfo[]>;
  /** Sessions of each chat's agent (ACP, hosted by ptydeck), by the chat's owner id. */
  byChat: Map<string, SessionInfo[]>;
  /** Agents gone, in the order their first session was created. */
  disconnected: DisconnectedAgent[];
  /** The developer's own terminals. */
  user: SessionInfo[];
  /**
   * Sessions an earlier host ran and died with (status `lost`), the developer's
   * and agents' alike, oldest first: listed together, apart from live ones,
   * until removed.
   */
  lost: SessionInfo[];
}

/**
 * Sorts the sessions the overview lists by who they belong to. A chat's
 * agent is listed with its chat, not among the connected agents, though its
 * MCP connection is one (under the chat's owner id). An agent session
 * whose owner is not among the connected agents belongs to an agent that has
 * disconnected, unless it is a chat's (`chatOwners`): a chat's agent is not an
 * MCP connection, and is not gone while its chat lasts. One without an owner
 * at all is grouped as an unknown agent. Lost sessions are grouped apart,
 * whoever's they are: what they share is that the restart ended them.
 */
export function groupSessions(
  sessions: readonly SessionInfo[],
  agents: readonly AgentInfo[],
  chatOwners: readonly string[] = [],
): SessionGroups {
  const byChat = new Map<string, SessionInfo[]>(chatOwners.map((owner) => [owner, []]));
  const listed = agents.filter((agent) => !byChat.has(agent.id));
  const connected = new Set(listed.map((agent) => agent.id));
  const byAgent = new Map<string, SessionInfo[]>(listed.map((agent) => [agent.id, []]));
  const gone = new Map<string, DisconnectedAgent>();
  const user: SessionInfo[] = [];
  const lost: SessionInfo[] = [];
  for (const session of sessions) {
    if (session.status === 'lost') {
      lost.push(session);
      continue;
    }
    if (session.source === 'user') {
      user.push(session);
      continue;
    }
    const owner = session.owner ?? '';
    if (connected.has(owner)) {
      byAgent.get(owner)!.push(session);
      continue;
    }
    const chat = byChat.get(owner);
    if (chat) {
      chat.push(session);
      continue;
    }
    let group = gone.get(owner);
    if (!group) {
      group = { owner, name: session.ownerName ?? 'unknown agent', sessions: [], running: [] };
      gone.set(owner, group);
    }
    group.sessions.push(session);
    if (session.status === 'running') group.running.push(session);
  }
  return { agents: listed, byAgent, byChat, disconnected: [...gone.values()], user, lost };
}
