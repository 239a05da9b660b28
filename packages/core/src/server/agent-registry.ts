import type { AgentInfo } from '@ptydeck/contract';

/** The MCP clients connected right now, as the panel's overview shows them. */
export class AgentRegistry {
  private readonly agents = new Map<string, AgentInfo>();
  private readonly listeners = new Set<(agents: AgentInfo[]) => void>();

  list(): AgentInfo[] {
    return [...this.agents.values()];
  }

  add(agent: AgentInfo): void {
    this.agents.set(agent.id, agent);
    this.emit();
  }

  remove(id: string): void {
    if (this.agents.delete(id)) this.emit();
  }

  onChange(listener: (agents: AgentInfo[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(): void {
    const agents = this.list();
    for (const listener of [...this.listeners]) listener(agents);
  }
}
