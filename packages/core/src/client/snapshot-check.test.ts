import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseServerMessage, SnapshotMessage, type SessionInfo } from '@ptydeck/contract';
import { readAttachMessage } from './attach-messages.js';
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

// attach's hand check of the panel messages it reads (attach-messages.ts), beside the snapshot's.
const ATTACH_ID = '141282d3-a2da-4c84-ae4b-827d77aad8bd';
const bytes = (value: unknown) => new TextEncoder().encode(typeof value === 'string' ? value : JSON.stringify(value));

describe('readAttachMessage', () => {
  afterEach(() => vi.restoreAllMocks());

  it('leaves out a message of a type attach does not read without parsing it (a timeline of thousands of records comes before the screen)', () => {
    const timeline = { type: 'timeline.snapshot', commands: Array.from({ length: 2000 }, (_, i) => ({ id: `c${i}`, command: `make test ${i}`, cwd: '/home/dev/project' })) };
    const parse = vi.spyOn(JSON, 'parse');
    for (const message of [timeline, { type: 'chat.list', chats: [] }, { type: 'processes.leftovers', sessions: [] }]) {
      expect(readAttachMessage(bytes(message), false)).toEqual({ kind: 'invalid', reason: 'a control message attach does not read, or malformed' });
    }
    expect(parse).not.toHaveBeenCalled();
  });

  it('reads the messages attach acts on as before, and leaves out one whose first type is another even where a later key names one it reads', () => {
    const resync = { type: 'resync', id: ATTACH_ID, cursor: 5, skipped: 0, screen: 'ready-0' };
    expect(readAttachMessage(bytes(resync), false)).toEqual({ kind: 'control', message: resync });
    const error = { type: 'error', code: 'no_such_session', message: 'no such session' };
    expect(readAttachMessage(bytes(error), false)).toEqual({ kind: 'control', message: error });
    const removed = { type: 'event', event: { type: 'pty.removed', id: ATTACH_ID } };
    expect(readAttachMessage(bytes(removed), false)).toEqual({ kind: 'control', message: removed });
    // JSON.parse keeps the last of two keys: a resync in disguise stays left out.
    expect(readAttachMessage(bytes(`{"type":"chat.list","type":"resync","id":"${ATTACH_ID}","cursor":0,"skipped":0,"screen":""}`), false).kind).toBe('invalid');
    // An escape in the type, or a message that does not open with its type, gets the full parse.
    expect(readAttachMessage(bytes(`{"type":"res\\u0079nc","id":"${ATTACH_ID}","cursor":0,"skipped":0,"screen":""}`), false).kind).toBe('control');
    expect(readAttachMessage(bytes({ id: ATTACH_ID, type: 'resync', cursor: 0, skipped: 0, screen: '' }), false).kind).toBe('control');
    expect(readAttachMessage(bytes('{"type":"resync",'), false)).toEqual({ kind: 'invalid', reason: 'control message is not JSON' });
  });

  it('reads as control only what the contract reads as control, the same message', () => {
    const texts = [
      JSON.stringify({ type: 'resync', id: ATTACH_ID, cursor: 5, skipped: 0, screen: 'ready-0' }),
      JSON.stringify({ type: 'resync', id: ATTACH_ID, cursor: -1, skipped: 0, screen: '' }),
      JSON.stringify({ type: 'resync', id: 'x', cursor: 0, skipped: 0, screen: '' }),
      JSON.stringify({ type: 'error', code: 'no_such_session', message: 'gone' }),
      JSON.stringify({ type: 'error', code: 'no_such_session' }),
      JSON.stringify({ type: 'event', event: { type: 'pty.removed', id: ATTACH_ID } }),
      JSON.stringify({ type: 'event', event: { type: 'pty.exited', id: ATTACH_ID, exitCode: 0, signal: null } }),
      JSON.stringify({ type: 'chat.list', chats: [] }),
      `{"type":"chat.list","type":"resync","id":"${ATTACH_ID}","cursor":0,"skipped":0,"screen":""}`,
    ];
    for (const text of texts) {
      const hand = readAttachMessage(bytes(text), false);
      if (hand.kind === 'control') expect(parseServerMessage(text), text).toEqual(hand);
    }
  });
});
