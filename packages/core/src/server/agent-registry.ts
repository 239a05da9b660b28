// The MCP clients connected right now, for the panel's overview.
import { Emitter, type AgentInfo, type ErrorReporter, type OnEvent } from '@ptydeck/contract';

/** The MCP clients connected right now, as the panel's overview shows them. */
export class AgentRegistry {
  private readonly agents = new Map<string, AgentInfo>();
  private readonly added: Emitter<AgentInfo>;
  private readonly removed: Emitter<AgentInfo>;
  /** Fires with each agent that joins (or is registered again under the same id, replacing the earlier entry). */
  readonly onAdded: OnEvent<AgentInfo>;
  /** Fires with each agent that leaves. */
  readonly onRemoved: OnEvent<AgentInfo>;

  /** `onListenerError` receives what a throwing listener threw; default: the contract's reportError. */
  constructor(onListenerError?: ErrorReporter) {
    this.added = new Emitter({ name: 'agent added', onListenerError });
    this.removed = new Emitter({ name: 'agent removed', onListenerError });
    this.onAdded = this.added.on;
    this.onRemoved = this.removed.on;
  }

  list(): AgentInfo[] {
    return [...this.agents.values()];
  }

  add(agent: AgentInfo): void {
    this.agents.set(agent.id, agent);
    this.added.fire(agent);
  }

  remove(id: string): void {
    const agent = this.agents.get(id);
    if (agent === undefined) return;
    this.agents.delete(id);
    this.removed.fire(agent);
  }
}
