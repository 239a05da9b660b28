import { describe, expect, it } from 'vitest';
import { AgentRegistry } from './agent-registry.js';

const agent = { id: 'a1', name: 'claude', version: '1.0.0', transport: 'http' as const, connectedAt: 0 };

describe('AgentRegistry', () => {
  it('isolates a throwing listener: the agent is added, the others hear of it, the error is reported', () => {
    const reports: string[] = [];
    const registry = new AgentRegistry((error, context) => reports.push(`${context}: ${(error as Error).message}`));
    const heard: number[] = [];
    registry.onChange(() => {
      throw new Error('closed panel');
    });
    registry.onChange((list) => heard.push(list.length));
    expect(() => registry.add(agent)).not.toThrow();
    expect(registry.list()).toHaveLength(1);
    expect(heard).toEqual([1]);
    expect(reports).toEqual(["a 'agents changed' listener threw: closed panel"]);
  });

  it('stops telling a listener once it unsubscribes', () => {
    const registry = new AgentRegistry();
    const heard: number[] = [];
    const off = registry.onChange((list) => heard.push(list.length));
    registry.add(agent);
    off();
    registry.remove(agent.id);
    expect(heard).toEqual([1]);
  });
});
