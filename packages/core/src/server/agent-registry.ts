import { Emitter, type AgentInfo, type ErrorReporter, type OnEvent } from '@ptydeck/contract';

/** The MCP clients connected right now, as the panel's overview shows them. */
export class AgentRegistry {
  private readonly agents = new Map<string, AgentInfo>();
  private readonly changed: Emitter<AgentInfo[]>;
  /** Fires with the whole list whenever an agent joins or leaves. */
  readonly onChange: OnEvent<AgentInfo[]>;

  /** `onListenerError` receives what a throwing listener threw; default: the contract's reportError. */
  constructor(onListenerError?: ErrorReporter) {
    this.changed = new Emitter({ name: 'agents changed', onListenerError });
    this.onChange = this.changed.on;
  }

  list(): AgentInfo[] {
    return [...this.agents.values()];
  }

  add(agent: AgentInfo): void {
    this.agents.set(agent.id, agent);
    this.changed.fire(this.list());
  }

  remove(id: string): void {
    if (this.agents.delete(id)) this.changed.fire(this.list());
  }
}
