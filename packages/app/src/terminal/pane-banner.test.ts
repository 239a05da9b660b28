import { describe, expect, it } from 'vitest';
import { paneBanner, typingIntoAgent } from './pane-banner.js';

const agentTab = { id: 'a', status: 'running' as const, readOnly: false, source: 'agent' as const };

describe('paneBanner', () => {
  it('gives a lost tab one banner, the lost one, whoever owned it', () => {
    expect(paneBanner({ ...agentTab, status: 'lost' })).toBe('lost');
    expect(paneBanner({ ...agentTab, status: 'lost', readOnly: true })).toBe('lost');
    expect(paneBanner({ ...agentTab, status: 'lost', source: 'user' })).toBe('lost');
  });

  it("keeps an agent tab's banner through its exit, so its terminal keeps its room", () => {
    expect(paneBanner(agentTab)).toBe('agent');
    expect(paneBanner({ ...agentTab, status: 'exited' })).toBe('agent');
    expect(paneBanner({ ...agentTab, readOnly: true })).toBe('read-only');
    expect(paneBanner({ ...agentTab, source: 'user' })).toBeNull();
  });
});

describe('typingIntoAgent', () => {
  it("is true only while the developer's keys reach an agent's running shell", () => {
    expect(typingIntoAgent(agentTab, 'a', false)).toBe(true);
    expect(typingIntoAgent(agentTab, null, false)).toBe(false);
    expect(typingIntoAgent(agentTab, 'a', true)).toBe(false);
    // A lost or exited shell takes no keys, even with its terminal focused: no "the agent sees what you type".
    expect(typingIntoAgent({ ...agentTab, status: 'lost' }, 'a', false)).toBe(false);
    expect(typingIntoAgent({ ...agentTab, status: 'exited' }, 'a', false)).toBe(false);
    expect(typingIntoAgent({ ...agentTab, readOnly: true }, 'a', false)).toBe(false);
  });
});
