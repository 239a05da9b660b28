import { describe, expect, it } from 'vitest';
import { exitLabel, tabLabel } from './tab-label.js';

describe('tabLabel', () => {
  it("names an agent's tab as the agent's", () => {
    expect(tabLabel({ source: 'agent', ownerName: 'claude-code', title: 'bash' })).toBe('claude-code agent: bash');
    expect(tabLabel({ source: 'agent', ownerName: null, title: 'bash' })).toBe('unknown agent: bash');
  });

  it("is just the title for the developer's own tab", () => {
    expect(tabLabel({ source: 'user', ownerName: null, title: 'zsh' })).toBe('zsh');
  });
});

describe('exitLabel', () => {
  it('prefers the signal, else the exit code', () => {
    expect(exitLabel({ exitCode: 3, signal: null })).toBe('exit 3');
    expect(exitLabel({ exitCode: null, signal: 'SIGKILL' })).toBe('SIGKILL');
    expect(exitLabel({ exitCode: null, signal: null })).toBe('exit ?');
  });
});
