import { describe, expect, it } from 'vitest';
import { endedBadly, exitLabel, tabLabel } from './tab-label.js';

describe('tabLabel', () => {
  it("names an agent's tab as the agent's", () => {
    expect(tabLabel({ source: 'agent', ownerName: 'claude-code', title: 'bash' })).toBe('claude-code agent: bash');
    expect(tabLabel({ source: 'agent', ownerName: null, title: 'bash' })).toBe('unknown agent: bash');
  });

  it('says when the tab waits for input', () => {
    const attention = { kind: 'confirm' as const, prompt: 'Continue? [y/N] ', since: 1 };
    expect(tabLabel({ source: 'agent', ownerName: 'codex', title: 'make build', attention })).toBe('codex agent: make build, waiting for input');
    expect(tabLabel({ source: 'agent', ownerName: 'codex', title: 'make build', attention: null })).toBe('codex agent: make build');
  });

  it('says when the tab is lost (an earlier host ran it), beside read-only', () => {
    expect(tabLabel({ source: 'user', ownerName: null, title: 'zsh', status: 'lost' })).toBe('zsh, lost');
    expect(tabLabel({ source: 'agent', ownerName: 'demo', title: 'npm test', readOnly: true, status: 'lost' })).toBe('demo agent: npm test, read-only, lost');
    expect(tabLabel({ source: 'user', ownerName: null, title: 'zsh', status: 'running' })).toBe('zsh');
  });

  it('says restored for a session an earlier host left on disk that is not lost (a lost one says lost)', () => {
    expect(tabLabel({ source: 'user', ownerName: null, title: 'zsh', status: 'exited', restored: true })).toBe('zsh, restored');
    expect(tabLabel({ source: 'user', ownerName: null, title: 'zsh', status: 'lost', restored: true })).toBe('zsh, lost');
    expect(tabLabel({ source: 'user', ownerName: null, title: 'zsh', status: 'exited', restored: false })).toBe('zsh');
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

  it('says closed, not SIGHUP, when the close was asked for, and does not flag it as a failure', () => {
    expect(exitLabel({ exitCode: null, signal: 'SIGHUP', closeRequested: true })).toBe('closed');
    expect(endedBadly({ exitCode: null, closeRequested: true })).toBe(false);
    expect(endedBadly({ exitCode: null, closeRequested: false })).toBe(true);
    expect(endedBadly({ exitCode: 3 })).toBe(true);
    expect(endedBadly({ exitCode: 0 })).toBe(false);
  });

  it('names a display-only tab read-only', () => {
    expect(tabLabel({ source: 'agent', ownerName: 'demo', title: 'npm test', readOnly: true })).toBe('demo agent: npm test, read-only');
  });
});
