import { describe, expect, it } from 'vitest';
import { SnapshotMessage, type SessionInfo } from '@ptydeck/contract';
import { sessionInfo } from '../testing/lost-records.js';
import { readSnapshot } from './host-snapshot.js';
import { readsAsSnapshot } from './snapshot-check.js';

// Every optional field a session may carry, set: the hand check must take what the host sends.
const full: SessionInfo = sessionInfo({
  id: '3f2a1b4c-0000-4000-8000-000000000001',
  source: 'agent',
  owner: 'conn-1',
  ownerName: 'claude-code',
  readOnly: false,
  closeRequested: false,
  restored: true,
  attention: { kind: 'confirm', prompt: 'Continue? [y/N] ', since: 1 },
  shell: { state: 'idle', lastExitCode: 0 },
  lost: { foundAt: 2, unwrittenBytes: null },
  ports: [{ port: 3000, address: '127.0.0.1', pid: 7, command: 'node server.js' }],
  sandbox: { profile: 'workspace', writable: ['/p'], hidden: ['/h/.ssh'], readOnly: ['/p/.git/hooks'], network: false, unavailable: null },
});
const snapshot = {
  type: 'snapshot',
  sessions: [full, sessionInfo({ id: 'plain' })],
  agents: [{ id: 'conn-1', name: 'claude-code', version: null, transport: 'http', connectedAt: 0 }],
  instance: 'i',
  mcpLaunch: { command: 'node', args: ['ptydeck.js', 'mcp'] },
  host: { pid: 1, version: '0.1.0', protocol: 1, startedAt: 0, stateDir: '/s' },
};

/** The snapshot with one field of its first session, its first agent or its host replaced. */
function withField(where: 'session' | 'agent' | 'host', key: string, value: unknown): unknown {
  const copy = structuredClone(snapshot) as unknown as { sessions: Record<string, unknown>[]; agents: Record<string, unknown>[]; host: Record<string, unknown> };
  const target = (where === 'session' ? copy.sessions[0] : where === 'agent' ? copy.agents[0] : copy.host)!;
  if (value === undefined) delete target[key];
  else target[key] = value;
  return copy;
}

describe('the hand check of a snapshot (snapshot-check.ts)', () => {
  it('takes what the contract takes from a host: every optional field set, or none', () => {
    expect(SnapshotMessage.safeParse(snapshot).success).toBe(true);
    expect(readsAsSnapshot(snapshot)).toBe(true);
    const { host: _host, mcpLaunch: _launch, ...bare } = snapshot;
    expect(readsAsSnapshot({ ...bare, sessions: [sessionInfo({ id: 'x' })], agents: [] })).toBe(true);
  });

  it('is never more lenient than the contract on a field a client reads: each wrong value the schema refuses, it refuses too', () => {
    const wrong: Array<['session' | 'agent' | 'host', string, unknown]> = [
      ['session', 'id', ''],
      ['session', 'id', 'x'.repeat(129)],
      ['session', 'id', 1],
      ['session', 'source', 'robot'],
      ['session', 'status', 'sleeping'],
      ['session', 'owner', undefined],
      ['session', 'ownerName', 3],
      ['session', 'title', null],
      ['session', 'command', undefined],
      ['session', 'args', ['a', 1]],
      ['session', 'cwd', 0],
      ['session', 'pid', 1.5],
      ['session', 'cols', 1],
      ['session', 'cols', 1001],
      ['session', 'rows', 0],
      ['session', 'rows', '24'],
      ['session', 'exitCode', 0.5],
      ['session', 'signal', 9],
      ['session', 'createdAt', '1'],
      ['session', 'exitedAt', undefined],
      ['session', 'readOnly', 'no'],
      ['session', 'attention', { kind: 'shout', prompt: 'p', since: 1 }],
      ['session', 'attention', { kind: 'confirm', prompt: 'p'.repeat(1001), since: 1 }],
      ['session', 'shell', { state: 'idle' }],
      ['session', 'lost', { foundAt: 1, unwrittenBytes: -1 }],
      ['session', 'ports', [{ port: 70000, address: 'a', pid: 1, command: 'c' }]],
      ['session', 'ports', [{ port: 1, address: 'a', pid: 1 }]],
      ['session', 'sandbox', { profile: 'strict', writable: [], hidden: [], network: true }],
      ['session', 'sandbox', { profile: 'off', writable: [], hidden: [], network: 'yes' }],
      ['session', 'sandbox', { profile: 'workspace', writable: [], hidden: [], readOnly: [7], network: true }],
      ['agent', 'transport', 'pigeon'],
      ['agent', 'name', undefined],
      ['agent', 'version', undefined],
      ['host', 'pid', '1'],
      ['host', 'stateDir', undefined],
    ];
    for (const [where, key, value] of wrong) {
      const broken = withField(where, key, value);
      expect(SnapshotMessage.safeParse(broken).success, `${where}.${key} = ${JSON.stringify(value)} (schema)`).toBe(false);
      expect(readsAsSnapshot(broken), `${where}.${key} = ${JSON.stringify(value)}`).toBe(false);
    }
    expect(readsAsSnapshot({ ...snapshot, type: 'event' })).toBe(false);
    expect(readsAsSnapshot({ ...snapshot, sessions: {} })).toBe(false);
    expect(readsAsSnapshot(null)).toBe(false);
  });

  it('leaves the rare answer it refuses to the schema, which decides and says what is wrong', async () => {
    await expect(readSnapshot(snapshot, 'http://127.0.0.1:1')).resolves.toBe(snapshot);
    await expect(readSnapshot(withField('session', 'cols', 0), 'http://127.0.0.1:1')).rejects.toThrow(
      /^ptydeck at http:\/\/127\.0\.0\.1:1 answered a session list this ptydeck cannot read: sessions\.0\.cols: /,
    );
  });
});
