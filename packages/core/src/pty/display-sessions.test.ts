import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PtyEvent } from '@ptydeck/contract';
import { createPtyService } from './pty-service.js';
import { isolatedEnv } from '../testing/isolated-env.js';
import { readAll, waitForExit } from '../testing/session-waits.js';
import { PtyError, type PtyService } from './types.js';

let service: PtyService;
let events: string[];

beforeEach(() => {
  service = createPtyService({ env: isolatedEnv(), maxLiveSessions: 1, reservedUserSessions: 0, maxDisplaySessions: 2 });
  events = [];
  for (const type of ['pty.created', 'pty.updated', 'pty.exited', 'pty.removed'] as const) {
    service.on(type, (event: PtyEvent) => events.push(type));
  }
  service.on('pty.data', (event) => events.push(`pty.data@${event.cursor}:${Buffer.from(event.data).toString()}`));
});
afterEach(async () => {
  await service.dispose();
});

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof PtyError) return error.code;
    throw error;
  }
  return undefined;
}

describe('display sessions', () => {
  it('take the command their creator names later, once, with pty.updated, and not after removal', async () => {
    const { info, session } = service.createDisplay({ source: 'agent', ownerName: 'claude', title: 'Terminal', cwd: '/' });
    expect(info).toMatchObject({ command: '', title: 'Terminal' });
    session.describe('ls -la', 'ls -la');
    session.describe('ls -la', 'ls -la');
    expect(service.get(info.id)).toMatchObject({ command: 'ls -la', title: 'ls -la' });
    expect(events.filter((type) => type === 'pty.updated')).toHaveLength(1);
    await service.remove(info.id);
    session.describe('pwd', 'pwd');
    expect(events.filter((type) => type === 'pty.updated')).toHaveLength(1);
  });

  it('stream what their creator appends through the usual events, and exit with what it reports', async () => {
    const { info, session } = service.createDisplay({ source: 'agent', owner: 'chat-1', ownerName: 'claude', command: 'npm test', cwd: '/' });
    expect(info).toMatchObject({ readOnly: true, pid: 0, source: 'agent', owner: 'chat-1', ownerName: 'claude', command: 'npm test', title: 'npm test', cwd: '/', status: 'running' });
    session.append('one\n');
    session.append(new TextEncoder().encode('two\n'));
    session.exit(3, null);
    session.append('late\n');
    session.exit(0, null);
    expect(events).toEqual(['pty.created', 'pty.data@0:one\n', 'pty.data@4:two\n', 'pty.exited']);
    expect(readAll(service, info.id).toString()).toBe('one\ntwo\n');
    expect(service.get(info.id)).toMatchObject({ status: 'exited', exitCode: 3, signal: null });
    expect(await waitForExit(service, info.id)).toEqual({ exitCode: 3, signal: null });
  });

  it('refuse input with a clear error, take a viewer size, and end on kill or remove', async () => {
    const a = service.createDisplay({ source: 'agent', owner: 'chat-1' });
    expect(() => service.write(a.info.id, 'ls\r')).toThrow(/display-only.*takes no input/);
    expect(codeOf(() => service.write(a.info.id, 'x'))).toBe('read_only');
    service.resize(a.info.id, 100, 30);
    expect(service.get(a.info.id)).toMatchObject({ cols: 100, rows: 30 });
    await service.kill(a.info.id);
    expect(service.get(a.info.id)).toMatchObject({ status: 'exited', exitCode: null, signal: null, closeRequested: true });
    const b = service.createDisplay({ source: 'agent', owner: 'chat-1' });
    await service.remove(b.info.id);
    expect(service.get(b.info.id)).toBeUndefined();
    expect(events.filter((e) => !e.startsWith('pty.data'))).toEqual(['pty.created', 'pty.updated', 'pty.exited', 'pty.created', 'pty.exited', 'pty.removed']);
  });

  it('have a cap of their own, apart from the sessions that hold processes', async () => {
    service.createDisplay({ source: 'agent' });
    const second = service.createDisplay({ source: 'agent' });
    expect(codeOf(() => service.createDisplay({ source: 'agent' }))).toBe('session_limit');
    // The one process slot is still free.
    const real = service.create({ source: 'user', command: 'true' });
    await waitForExit(service, real.id);
    second.session.exit(0, null);
    expect(() => service.createDisplay({ source: 'agent' })).not.toThrow();
  });

  it('check their input where it enters, and end with the service', async () => {
    expect(codeOf(() => service.createDisplay({ source: 'agent', cwd: '/no/such/dir' }))).toBe('invalid_argument');
    expect(codeOf(() => service.createDisplay({ source: 'nobody' as 'agent' }))).toBe('invalid_argument');
    const { info, session } = service.createDisplay({ source: 'agent' });
    expect(() => session.append(5 as unknown as string)).toThrow(PtyError);
    await service.dispose();
    expect(service.get(info.id)).toMatchObject({ status: 'exited' });
    expect(codeOf(() => service.createDisplay({ source: 'agent' }))).toBe('disposed');
  });
});
