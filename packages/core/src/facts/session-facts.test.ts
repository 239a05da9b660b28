import type { SessionInfo } from '@ptydeck/contract';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPtyService } from '../pty/pty-service.js';
import type { PtyService } from '../pty/types.js';
import { isolatedEnv } from '../testing/isolated-env.js';
import { lostRecord } from '../testing/lost-records.js';
import { waitForExit, waitForOutput } from '../testing/session-waits.js';
import { SessionFacts } from './session-facts.js';

/**
 * What others learn of a session is kept beside the PTY service's record, not
 * in it: the panels hear it through the same pty.* events, each with the whole
 * info, and the service's own record stays what it spawned.
 */
const BASH = ['--norc', '--noprofile'];
let service: PtyService;
let facts: SessionFacts;
let updates: SessionInfo[];

beforeEach(() => {
  service = createPtyService({ env: isolatedEnv() });
  facts = new SessionFacts(service);
  updates = [];
  facts.on('pty.updated', (event) => updates.push(event.info));
});

afterEach(async () => {
  facts.dispose();
  await service.dispose();
});

describe('session facts', () => {
  it('sets ports with pty.updated only when they change, also after exit, never on a display session', async () => {
    const info = service.create({ command: 'bash', args: BASH, source: 'user' });
    const port = { port: 8000, address: '127.0.0.1', pid: info.pid, command: 'python3 -m http.server' };
    facts.setPorts(info.id, []);
    facts.setPorts(info.id, []);
    facts.setPorts(info.id, [port]);
    facts.setPorts(info.id, [{ ...port }]);
    expect(updates.map((update) => update.ports)).toEqual([[], [port]]);
    service.write(info.id, 'exit\r');
    await waitForExit(service, info.id);
    // What an exited session left running may still listen.
    facts.setPorts(info.id, []);
    expect(facts.get(info.id)!.ports).toEqual([]);
    const display = service.createDisplay({ source: 'agent', command: 'npm test' });
    facts.setPorts(display.info.id, [port]);
    expect(facts.get(display.info.id)!.ports).toBeUndefined();
    expect(updates).toHaveLength(3);
    // The PTY service's record holds none of it.
    expect(service.get(info.id)).not.toHaveProperty('ports');
  });

  it('keeps what was learned in every later event of the service, clears attention at exit and ignores it after', async () => {
    const info = service.create({ command: 'bash', args: BASH, source: 'user', env: { PS1: '$ ' } });
    await waitForOutput(service, info.id, '$ ');
    const attention = { kind: 'confirm' as const, prompt: 'Continue? [y/N] ', since: 1 };
    facts.setAttention(info.id, attention);
    facts.setAttention(info.id, { ...attention });
    facts.setShellActivity(info.id, { state: 'idle', lastExitCode: 0 });
    expect(updates).toHaveLength(2);
    // A change the service makes (a resize) comes through with what was learned.
    service.resize(info.id, 100, 30);
    expect(updates.at(-1)).toMatchObject({ cols: 100, attention, shell: { state: 'idle', lastExitCode: 0 } });
    expect(facts.list().find((listed) => listed.id === info.id)).toMatchObject({ attention });
    expect(service.get(info.id)).not.toHaveProperty('attention');

    const exited = new Promise<SessionInfo>((resolve) => facts.on('pty.exited', (event) => resolve(event.info)));
    service.write(info.id, 'exit\r');
    expect(await exited).toMatchObject({ status: 'exited', attention: null });
    facts.setAttention(info.id, attention);
    facts.setShellActivity(info.id, { state: 'running', lastExitCode: 0 });
    expect(facts.get(info.id)!.attention).toBeNull();
    expect(facts.get(info.id)!.shell).toEqual({ state: 'idle', lastExitCode: 0 });

    await service.remove(info.id);
    expect(facts.get(info.id)).toBeUndefined();
  });

  it('says of a restored session that nobody waits and no shell is known, whatever its record claimed', () => {
    const record = lostRecord({ attention: { kind: 'password', prompt: 'Password: ', since: 1 }, shell: { state: 'idle', lastExitCode: 0 }, ports: [] }, 'old output\r\n');
    const created = new Promise<SessionInfo>((resolve) => facts.on('pty.created', (event) => resolve(event.info)));
    const restored = service.restore(record);
    expect(restored).not.toHaveProperty('attention');
    return created.then((info) => {
      expect(info).toMatchObject({ id: restored.id, attention: null, shell: null });
      expect(info.ports).toBeUndefined();
      expect(facts.get(restored.id)).toMatchObject({ attention: null, shell: null });
    });
  });
});
