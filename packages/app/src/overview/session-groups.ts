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
  /** Sessions of each connected agent, by agent id. */
  byAgent: Map<string, SessionInfo[]>;
  /** Agents gone, in the order their first session was created. */
  disconnected: DisconnectedAgent[];
  /** The developer's own terminals. */
  user: SessionInfo[];
}

/**
 * Sorts the sessions the overview lists by who they belong to. An agent session
 * whose owner is not among the connected agents belongs to an agent that has
 * disconnected; one without an owner at all is grouped as an unknown agent.
 */
export function groupSessions(sessions: readonly SessionInfo[], agents: readonly AgentInfo[]): SessionGroups {
  const connected = new Set(agents.map((agent) => agent.id));
  const byAgent = new Map<string, SessionInfo[]>(agents.map((agent) => [agent.id, []]));
  const gone = new Map<string, DisconnectedAgent>();
  const user: SessionInfo[] = [];
  for (const session of sessions) {
    if (session.source === 'user') {
      user.push(session);
      continue;
    }
    const owner = session.owner ?? '';
    if (connected.has(owner)) {
      byAgent.get(owner)!.push(session);
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
  return { byAgent, disconnected: [...gone.values()], user };
}
