import { describe, expect, it } from 'vitest';
import type { SessionInfo } from '@ptydeck/contract';
import { sessionStatus } from './session-status.js';

function session(overrides: Partial<SessionInfo> = {}): SessionInfo {
  return {
    id: 's1', source: 'agent', owner: 'a', ownerName: 'claude-code', title: 'ls /; false', command: 'bash', args: [], cwd: '/w', pid: 1,
    cols: 80, rows: 24, status: 'running', exitCode: null, signal: null, createdAt: 1, exitedAt: null, ...overrides,
  };
}

describe('sessionStatus', () => {
  it('says a shell at its prompt is idle, with how its last command ended, not running', () => {
    const status = sessionStatus(session({ shell: { state: 'idle', lastExitCode: 1 } }), false);
    expect(status).toEqual({ state: 'idle', label: 'idle', lastExit: 'last exit 1', failed: true });
    expect(sessionStatus(session({ shell: { state: 'idle', lastExitCode: 0 } }), false)).toMatchObject({ lastExit: 'last exit 0', failed: false });
  });

  it('says idle alone before the shell has finished any command', () => {
    expect(sessionStatus(session({ shell: { state: 'idle', lastExitCode: null } }), false)).toEqual({ state: 'idle', label: 'idle', lastExit: null, failed: false });
  });

  it('says running while the shell runs a command, and for a program whose commands nobody follows', () => {
    expect(sessionStatus(session({ shell: { state: 'running', lastExitCode: 1 } }), false)).toEqual({ state: 'running', label: 'running', lastExit: null, failed: false });
    expect(sessionStatus(session(), false).state).toBe('running');
    expect(sessionStatus(session({ shell: null }), false).state).toBe('running');
  });

  it('says lost for a session an earlier host ran, connected or not, and not failed', () => {
    const lost = session({ status: 'lost', lost: { foundAt: 2, unwrittenBytes: 10 }, shell: { state: 'idle', lastExitCode: 1 } });
    expect(sessionStatus(lost, false)).toEqual({ state: 'lost', label: 'lost', lastExit: null, failed: false });
    expect(sessionStatus(lost, true).state).toBe('lost');
  });

  it('says a command waiting for an answer needs input, whatever the shell reported', () => {
    const attention = { kind: 'confirm' as const, prompt: 'Continue? [y/N] ', since: 1 };
    expect(sessionStatus(session({ attention, shell: { state: 'running', lastExitCode: null } }), false)).toMatchObject({ state: 'needs-input', label: 'needs input' });
  });

  it('says how an exited session ended, its last shell state no longer mattering', () => {
    const exited = session({ status: 'exited', exitCode: 3, shell: { state: 'idle', lastExitCode: 0 } });
    expect(sessionStatus(exited, false)).toEqual({ state: 'exited', label: 'exit 3', lastExit: null, failed: true });
    expect(sessionStatus(session({ status: 'exited', exitCode: null, signal: 'SIGHUP', closeRequested: true }), false)).toMatchObject({ label: 'closed', failed: false });
  });

  it('claims nothing about a live session while the page is disconnected', () => {
    expect(sessionStatus(session({ shell: { state: 'idle', lastExitCode: 1 } }), true)).toEqual({ state: 'unknown', label: 'unknown', lastExit: null, failed: false });
  });
});
