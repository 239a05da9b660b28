import { describe, expect, it } from 'vitest';
import { AgentRegistry } from './agent-registry.js';

const agent = { id: 'a1', name: 'claude', version: '1.0.0', transport: 'http' as const, connectedAt: 0 };

describe('AgentRegistry', () => {
  it('isolates a throwing listener: the agent is added, the others hear of it, the error is reported', () => {
    const reports: string[] = [];
    const registry = new AgentRegistry((error, context) => reports.push(`${context}: ${(error as Error).message}`));
    const heard: string[] = [];
    registry.onAdded(() => {
      throw new Error('closed panel');
    });
    registry.onAdded((added) => heard.push(added.id));
    expect(() => registry.add(agent)).not.toThrow();
    expect(registry.list()).toHaveLength(1);
    expect(heard).toEqual(['a1']);
    expect(reports).toEqual(["a 'agent added' listener threw: closed panel"]);
  });

  it('stops telling a listener once it unsubscribes', () => {
    const registry = new AgentRegistry();
    const heard: string[] = [];
    const offAdded = registry.onAdded((added) => heard.push(`+${added.id}`));
    const offRemoved = registry.onRemoved((removed) => heard.push(`-${removed.id}`));
    registry.add(agent);
    registry.remove(agent.id);
    offAdded();
    offRemoved();
    registry.add(agent);
    registry.remove(agent.id);
    expect(heard).toEqual(['+a1', '-a1']);
  });

  it('tells of each change alone, and of a removal only for an agent it knows', () => {
    const registry = new AgentRegistry();
    const heard: string[] = [];
    registry.onAdded((added) => heard.push(`+${added.id}`));
    registry.onRemoved((removed) => heard.push(`-${removed.id}`));
    registry.add(agent);
    registry.add({ ...agent, id: 'a2' });
    registry.remove('a1');
    registry.remove('a1');
    registry.remove('never');
    expect(heard).toEqual(['+a1', '+a2', '-a1']);
    expect(registry.list().map((a) => a.id)).toEqual(['a2']);
  });
});
