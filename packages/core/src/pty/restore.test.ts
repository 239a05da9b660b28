import { spawn, type ChildProcess } from 'node:child_process';
import type { SessionInfo } from '@ptydeck/contract';
import { afterEach, describe, expect, it } from 'vitest';
import type { LostRecord } from './lost-record.js';
import { lostRecord } from '../testing/lost-records.js';
import { groupAlive } from './process-tree.js';
import { createPtyService } from './pty-service.js';
import { isolatedEnv } from '../testing/isolated-env.js';
import { readAll, waitForExit } from '../testing/session-waits.js';
import { PtyError, type PtyService, type PtyServiceEventMap, type PtyServiceOptions } from './types.js';

const services: PtyService[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((service) => service.dispose()));
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

function newService(options: PtyServiceOptions = {}): PtyService {
  const service = createPtyService({ env: isolatedEnv(), ...options });
  services.push(service);
  return service;
}

const AGENTS = { source: 'agent', owner: 'agent-abc', ownerName: 'claude-code', cols: 100, rows: 30 } as const;

/** An agent's session as an earlier host kept it, its output saved from cursor `start`. */
function record(overrides: Partial<SessionInfo> = {}, text = 'hello from before\r\n', start = 1000, unwrittenBytes: number | null = 7): LostRecord {
  return lostRecord({ ...AGENTS, ...overrides }, text, { start, unwrittenBytes });
}

function refusal(run: () => unknown): PtyError {
  try {
    run();
  } catch (error) {
    if (error instanceof PtyError) return error;
    throw error;
  }
  throw new Error('expected a PtyError');
}

describe('PtyService.restore', () => {
  it('brings a session that was running back lost, under its id and owner, read-only, with its output at its old cursors', async () => {
    const service = newService();
    const created: PtyServiceEventMap['pty.created'][] = [];
    service.on('pty.created', (event) => created.push(event));
    const before = Date.now();
    const lost = record();
    const restored = service.restore(lost);

    expect(restored).toMatchObject({ id: lost.info.id, source: 'agent', owner: 'agent-abc', ownerName: 'claude-code', status: 'lost', pid: 0, cols: 100, rows: 30 });
    expect(restored.lost?.unwrittenBytes).toBe(7);
    expect(restored.lost?.foundAt).toBeGreaterThanOrEqual(before);
    expect(created.map((event) => event.info)).toEqual([restored]);
    expect(service.get(lost.info.id)).toEqual(restored);
    expect(service.list()).toEqual([restored]);

    // A reader's cursor from before the restart addresses the same bytes; one from before what was kept is told what it missed.
    const tail = service.read(lost.info.id, { cursor: 1006 });
    expect(Buffer.from(tail.data).toString()).toBe('from before\r\n');
    expect(tail).toMatchObject({ cursor: 1006, end: 1019, status: 'lost', exitCode: null, signal: null });
    expect(service.read(lost.info.id, { cursor: 0 })).toMatchObject({ cursor: 1000, skipped: 1000 });

    for (const error of [refusal(() => service.write(lost.info.id, 'ls\r')), refusal(() => service.resize(lost.info.id, 90, 20))]) {
      expect(error.code).toBe('not_running');
      expect(error.message).toMatch(/process is gone/);
    }
    await service.kill(lost.info.id);
    await service.kill(lost.info.id, 'SIGTERM');
    expect(service.get(lost.info.id)?.status).toBe('lost');

    const removed: string[] = [];
    service.on('pty.removed', (event) => removed.push(event.id));
    await service.remove(lost.info.id);
    expect(removed).toEqual([lost.info.id]);
    expect(service.get(lost.info.id)).toBeUndefined();
  });

  it('brings an exited session back exited, as it ended, and says nothing of loss', () => {
    const service = newService();
    const restored = service.restore(record({ status: 'exited', exitCode: 3, exitedAt: 1_700_000_001_000 }, 'bye\r\n', 0, null));
    expect(restored).toMatchObject({ status: 'exited', exitCode: 3, signal: null, exitedAt: 1_700_000_001_000, lost: null });
    expect(refusal(() => service.write(restored.id, 'x')).message).toMatch(/process is gone: it had exited before/);
    expect(readAll(service, restored.id).toString()).toBe('bye\r\n');
  });

  it('says nothing of how much was lost when the old host left no figure', () => {
    const service = newService();
    expect(service.restore(record({}, 'x', 0, null)).lost).toMatchObject({ unwrittenBytes: null });
  });

  it('takes no running slot for a restored session, caps its log, and evicts none for another record or this host\'s exits', async () => {
    const service = newService({ maxLiveSessions: 1, reservedUserSessions: 0, maxExitedSessions: 2, maxExitedTotal: 3, sessionLogBytes: 8 });
    const removed: string[] = [];
    service.on('pty.removed', (event) => removed.push(event.id));
    // The developer's lost tab, then more exited records under the same owner than it keeps: planted ones, for all anyone can tell.
    const real = record({ source: 'user', owner: null, ownerName: null, createdAt: 1 });
    const planted = Array.from({ length: 5 }, (_, i) => record({ source: 'user', owner: null, ownerName: null, status: 'exited', exitCode: 0, exitedAt: 10 + i, createdAt: 2 + i }));
    for (const lost of [real, ...planted]) service.restore(lost);
    expect(removed).toEqual([]);
    expect(service.get(real.info.id)).toMatchObject({ status: 'lost', restored: true });
    expect(readAll(service, planted[4]!.info.id).toString()).toBe('before\r\n');

    // This host's own exits are held to the caps among themselves; the restored stay.
    const own: string[] = [];
    for (let i = 0; i < 4; i++) {
      const live = service.create({ command: 'bash', args: ['--norc', '--noprofile', '-c', 'exit 5'], source: 'user' });
      expect(await waitForExit(service, live.id)).toEqual({ exitCode: 5, signal: null });
      own.push(live.id);
    }
    expect(removed).toEqual(own.slice(0, 2));
    expect(service.list().filter((info) => info.restored)).toHaveLength(6);
  });

  it('takes nothing a record says at its word: controls dropped from what is drawn, no ports, marked restored', () => {
    const service = newService();
    const restored = service.restore(
      record({
        title: 'npm test\x1b]0;pwned\x07\x1b[2J',
        cwd: '/etc\r\n\x9b31m',
        command: 'npm\x1b[8m',
        args: ['test\x00'],
        ownerName: 'claude\x1b[1m',
        signal: 'SIG\x1b[2J',
        ports: [{ port: 33783, address: '127.0.0.1', pid: 4242, command: 'node server.js' }],
      }),
    );
    expect(restored).toMatchObject({ title: 'npm test]0;pwned[2J', cwd: '/etc31m', command: 'npm[8m', args: ['test'], ownerName: 'claude [1m', signal: null, restored: true });
    expect(restored).not.toHaveProperty('ports');
    expect(service.get(restored.id)).not.toHaveProperty('ports');
    // The owner's badge as the host shows an MCP client's name: never reversed (a right-to-left override) or blank.
    expect(service.restore(record({ ownerName: '\u202Eedualc' })).ownerName).toBe('edualc');
    expect(service.restore(record({ ownerName: '\u200b\u2066 ' })).ownerName).toBe('unknown');
  });

  it('signals nothing for a restored session, whatever process its old pid names now', async () => {
    // A process group of someone else's under the pid the record kept.
    const stranger = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
    children.push(stranger);
    const service = newService();
    const lost = service.restore(record({ pid: stranger.pid! }));
    await service.kill(lost.id, 'SIGKILL');
    await service.remove(service.restore(record({ pid: stranger.pid! })).id);
    service.restore(record({ pid: stranger.pid! }));
    await service.dispose();
    expect(groupAlive(stranger.pid!)).toBe(true);
  });

  it('refuses a record whose id is taken or whose info is malformed', () => {
    const service = newService();
    const lost = record();
    service.restore(lost);
    expect(refusal(() => service.restore(lost))).toMatchObject({ code: 'invalid_argument', message: expect.stringMatching(/exists/) });
    expect(refusal(() => service.restore({ ...record(), info: { ...record().info, source: 'robot' } as unknown as SessionInfo })).code).toBe('invalid_argument');
    expect(refusal(() => service.restore({ ...record(), start: -1 })).code).toBe('invalid_argument');
  });
});
