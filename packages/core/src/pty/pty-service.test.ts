import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { SessionInfo } from '@ptydeck/contract';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createPtyService } from './pty-service.js';
import { fileTempDir, isolatedEnv } from '../testing/isolated-env.js';
import { readAll, waitForExit, waitForOutput } from '../testing/session-waits.js';
import { PtyError, type PtyService, type PtyServiceEventMap } from './types.js';

const BASH = ['--norc', '--noprofile'];
let service: PtyService;

beforeEach(() => {
  service = createPtyService({ env: isolatedEnv() });
});
afterEach(async () => {
  await service.dispose();
});

function expectPtyError(run: () => unknown, code: PtyError['code'], message: RegExp): void {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(PtyError);
  expect((caught as PtyError).code).toBe(code);
  expect((caught as PtyError).message).toMatch(message);
}

describe('PtyService', () => {
  it('round-trips input and output with absolute cursors, created before any output', async () => {
    const seen: string[] = [];
    const chunks: PtyServiceEventMap['pty.data'][] = [];
    service.on('pty.created', (event) => seen.push(`created:${event.info.id}`));
    service.on('pty.data', (event) => {
      if (chunks.length === 0) seen.push(`data:${event.id}`);
      chunks.push(event);
    });
    const info = service.create({ command: 'bash', args: BASH, source: 'agent', owner: 'conn-1', ownerName: 'claude-code', env: { PS1: 'READY> ' } });
    expect(info).toMatchObject({ source: 'agent', owner: 'conn-1', ownerName: 'claude-code', status: 'running', command: 'bash', cols: 80, rows: 24 });
    expect(info.pid).toBeGreaterThan(0);
    expect(seen).toEqual([`created:${info.id}`]);

    await waitForOutput(service, info.id, 'READY> ');
    service.write(info.id, 'echo "hi $((6*7))"\r');
    await waitForOutput(service, info.id, 'hi 42');
    expect(seen[1]).toBe(`data:${info.id}`);

    // Chunks are contiguous and their cursors address the log.
    let expected = 0;
    for (const chunk of chunks) {
      expect(chunk.cursor).toBe(expected);
      expected += chunk.data.length;
    }
    const all = service.read(info.id);
    expect(all).toMatchObject({ cursor: 0, skipped: 0, status: 'running', exitCode: null, signal: null });
    expect(all.next).toBe(all.end);
    const middle = service.read(info.id, { cursor: 3, maxBytes: 5 });
    expect(middle.cursor).toBe(3);
    expect(middle.next).toBe(8);
    expect(Buffer.from(middle.data)).toEqual(Buffer.from(all.data).subarray(3, 8));
    expect(service.read(info.id, { cursor: all.end }).data.length).toBe(0);
  });

  it('builds the session environment and takes bytes as input', async () => {
    const info = service.create({
      command: 'bash',
      args: [...BASH, '-c', 'read line; echo "got=$line TERM=$TERM COLORTERM=$COLORTERM ID=$PTYDECK_SESSION_ID LANG=${LANG:+set} X=$X"'],
      env: { X: 'from-caller', TERM: 'overridden-anyway' },
      source: 'user',
    });
    service.write(info.id, new TextEncoder().encode('bytes ✓\r'));
    await waitForExit(service, info.id);
    const text = readAll(service, info.id).toString('utf8');
    expect(text).toContain(`got=bytes ✓ TERM=xterm-256color COLORTERM=truecolor ID=${info.id} LANG=set X=from-caller`);
  });

  it('reports exit codes and signals, and keeps the log readable after exit', async () => {
    const code = service.create({ command: 'bash', args: ['-c', 'printf done; exit 7'], source: 'agent' });
    const exits: PtyServiceEventMap['pty.exited'][] = [];
    service.on('pty.exited', (event) => exits.push(event));
    expect(await waitForExit(service, code.id)).toEqual({ exitCode: 7, signal: null });
    const after = service.read(code.id);
    expect(Buffer.from(after.data).toString()).toBe('done');
    expect(after).toMatchObject({ status: 'exited', exitCode: 7, signal: null });
    expect(service.get(code.id)).toMatchObject({ status: 'exited', exitCode: 7 });
    expect(service.get(code.id)!.exitedAt).toBeGreaterThanOrEqual(service.get(code.id)!.createdAt);
    expect(exits[0]).toMatchObject({ id: code.id, exitCode: 7, signal: null, info: { status: 'exited' } });

    const killed = service.create({ command: 'bash', args: ['-c', 'kill -TERM $$'], source: 'agent' });
    expect(await waitForExit(service, killed.id)).toEqual({ exitCode: null, signal: 'SIGTERM' });

    const sleeper = service.create({ command: 'sleep', args: ['1000'], source: 'agent' });
    // A signal sent between fork and exec can be lost (it once outlasted the 3 s grace on a loaded machine): wait for sleep itself.
    await vi.waitFor(() => expect(readFileSync(`/proc/${sleeper.pid}/cmdline`, 'latin1')).toMatch(/^(\S*\/)?sleep\0/), { timeout: 10_000, interval: 5 });
    await service.kill(sleeper.id, 'SIGINT');
    expect(service.get(sleeper.id)).toMatchObject({ status: 'exited', signal: 'SIGINT' });
    expectPtyError(() => service.write(sleeper.id, 'x'), 'not_running', /has exited/);
    expectPtyError(() => service.resize(sleeper.id, 100, 30), 'not_running', /has exited/);
  });

  it('resizes the terminal so programs see it, with pty.updated', async () => {
    const info = service.create({ command: 'bash', args: BASH, source: 'user', cols: 90, rows: 20, env: { PS1: '$ ' } });
    const updates: SessionInfo[] = [];
    service.on('pty.updated', (event) => updates.push(event.info));
    await waitForOutput(service, info.id, '$ ');
    service.write(info.id, 'echo "cols=$(tput cols) lines=$(tput lines)"\r');
    await waitForOutput(service, info.id, 'cols=90 lines=20');
    service.resize(info.id, 132, 43);
    expect(updates.at(-1)).toMatchObject({ id: info.id, cols: 132, rows: 43 });
    expect(service.get(info.id)).toMatchObject({ cols: 132, rows: 43 });
    service.write(info.id, 'echo "cols=$(tput cols) lines=$(tput lines)"\r');
    await waitForOutput(service, info.id, 'cols=132 lines=43');
  });

  it('follows OSC 0/2 titles with pty.updated', async () => {
    const info = service.create({ command: 'bash', args: BASH, source: 'user', title: 'start', env: { PS1: '$ ' } });
    expect(info.title).toBe('start');
    const titles: string[] = [];
    service.on('pty.updated', (event) => titles.push(event.info.title));
    await waitForOutput(service, info.id, '$ ');
    service.write(info.id, "printf '\\033]0;build: ✓\\007'; echo one-$((1+1))\r");
    await waitForOutput(service, info.id, 'one-2');
    service.write(info.id, "printf '\\033]1;icon only\\007\\033]2;second\\033\\\\'; echo two-$((1+1))\r");
    await waitForOutput(service, info.id, 'two-2');
    expect(titles).toEqual(['build: ✓', 'second']);
    expect(service.get(info.id)!.title).toBe('second');
  });

  it('starts the login shell ($SHELL -l, with -l once) when no command is given', async () => {
    const dir = fileTempDir('ptydeck-shell-');
    const shell = path.join(dir, 'fake-shell');
    writeFileSync(shell, '#!/bin/sh\necho "argv0=$0 args=$*"\n');
    chmodSync(shell, 0o755);
    const svc = createPtyService({ env: { ...isolatedEnv(), SHELL: shell } });
    try {
      const info = svc.create({ source: 'user', args: ['-l', '--extra'] });
      expect(info.command).toBe(shell);
      expect(info.args).toEqual(['-l', '--extra']);
      await waitForExit(svc, info.id);
      expect(readAll(svc, info.id).toString()).toBe(`argv0=${shell} args=-l --extra\r\n`);
    } finally {
      await svc.dispose();
    }
  });

  it('falls back to bash when $SHELL cannot be run', async () => {
    // An empty HOME keeps the machine's own ~/.profile (which may block on a lock) out of the test.
    const home = fileTempDir('ptydeck-home-');
    const svc = createPtyService({ env: { ...process.env, SHELL: '/nonexistent/shell', HOME: home } });
    try {
      const info = svc.create({ source: 'user' });
      expect(path.basename(info.command)).toBe('bash');
      expect(info.args).toEqual(['-l']);
      svc.write(info.id, 'echo "login=$(shopt -q login_shell && echo yes)"; exit\r');
      await waitForExit(svc, info.id);
      expect(readAll(svc, info.id).toString()).toContain('login=yes');
    } finally {
      await svc.dispose();
    }
  });

  it('marks an exit that a close asked for, and not one the process chose or a signal it was sent', async () => {
    const closed = service.create({ command: 'bash', args: BASH, source: 'agent', env: { PS1: '$ ' } });
    const forced = service.create({ command: 'sleep', args: ['30'], source: 'agent' });
    const signalled = service.create({ command: 'sleep', args: ['30'], source: 'agent' });
    const own = service.create({ command: 'sh', args: ['-c', 'exit 4'], source: 'agent' });
    const exits = new Map<string, SessionInfo>();
    service.on('pty.exited', (event) => exits.set(event.id, event.info));
    await waitForOutput(service, closed.id, '$ ');
    await service.kill(closed.id);
    await service.kill(forced.id, 'SIGKILL');
    await service.kill(signalled.id, 'SIGTERM');
    await waitForExit(service, own.id);
    expect(exits.get(closed.id)).toMatchObject({ signal: 'SIGHUP', closeRequested: true });
    expect(exits.get(forced.id)).toMatchObject({ signal: 'SIGKILL', closeRequested: true });
    expect(exits.get(signalled.id)?.closeRequested).toBeUndefined();
    expect(exits.get(own.id)?.closeRequested).toBeUndefined();
  });

  it('rejects bad input with typed errors and leaves other sessions untouched', async () => {
    const bystander = service.create({ command: 'bash', args: BASH, source: 'user', env: { PS1: '$ ' } });
    await waitForOutput(service, bystander.id, '$ ');
    expectPtyError(() => service.write('nope', 'x'), 'no_such_session', /no session with id 'nope'/);
    expectPtyError(() => service.read('nope'), 'no_such_session', /nope/);
    expectPtyError(() => service.resize('nope', 80, 24), 'no_such_session', /nope/);
    await expect(service.kill('nope')).rejects.toMatchObject({ code: 'no_such_session' });
    await expect(service.remove('nope')).rejects.toMatchObject({ code: 'no_such_session' });
    expect(service.get('nope')).toBeUndefined();
    expectPtyError(() => service.create({ source: 'agent', cwd: '/does/not/exist' }), 'invalid_argument', /cwd '\/does\/not\/exist' does not exist/);
    expectPtyError(() => service.create({ source: 'agent', cwd: '/etc/passwd' }), 'invalid_argument', /not a directory/);
    expectPtyError(() => service.create({ source: 'agent', cols: 0 }), 'invalid_argument', /cols must be between 2 and 1000/);
    expectPtyError(() => service.create({ source: 'agent', rows: 100000 }), 'invalid_argument', /rows must be between 1 and 500/);
    expectPtyError(() => service.create({ source: 'robot' } as never), 'invalid_argument', /source/);
    expectPtyError(() => service.create({} as never), 'invalid_argument', /source/);
    expectPtyError(() => service.create({ source: 'agent', command: 'no-such-command-ptydeck' }), 'spawn_failed', /'no-such-command-ptydeck': not found on PATH/);
    expectPtyError(() => service.create({ source: 'agent', command: '/etc/passwd' }), 'spawn_failed', /not executable/);
    expectPtyError(() => service.create({ source: 'agent', command: './missing', cwd: '/tmp' }), 'spawn_failed', /\/tmp\/missing does not exist/);
    expectPtyError(() => service.resize(bystander.id, 0, 24), 'invalid_argument', /cols must be between/);
    expectPtyError(() => service.resize(bystander.id, 80, 100000), 'invalid_argument', /rows must be between/);
    expectPtyError(() => service.resize(bystander.id, 80.5, 24), 'invalid_argument', /cols must be an integer/);
    expectPtyError(() => service.write(bystander.id, 42 as never), 'invalid_argument', /string or bytes, not number/);
    expectPtyError(() => service.write(bystander.id, null as never), 'invalid_argument', /not null/);
    expectPtyError(() => service.read(bystander.id, { cursor: -1 }), 'invalid_argument', /cursor must not be negative/);
    expectPtyError(() => service.read(bystander.id, { cursor: 1e12 }), 'invalid_argument', /past the end/);
    expectPtyError(() => service.read(bystander.id, { maxBytes: 0 }), 'invalid_argument', /maxBytes/);
    expectPtyError(() => service.read(bystander.id, { into: 'yes' as never }), 'invalid_argument', /into must be a Uint8Array/);
    await expect(service.kill(bystander.id, 'SIGNOPE' as never)).rejects.toMatchObject({ code: 'invalid_argument' });

    expect(service.list().map((info) => info.id)).toEqual([bystander.id]);
    service.write(bystander.id, 'echo "still-$((1+1))"\r');
    await waitForOutput(service, bystander.id, 'still-2');
  });

  it('limits live sessions with a typed error', async () => {
    const svc = createPtyService({ env: isolatedEnv(), maxLiveSessions: 2, reservedUserSessions: 0 });
    try {
      const first = svc.create({ command: 'sleep', args: ['1000'], source: 'agent' });
      svc.create({ command: 'sleep', args: ['1000'], source: 'agent' });
      expectPtyError(() => svc.create({ command: 'sleep', args: ['1000'], source: 'agent' }), 'session_limit', /limit 2/);
      await svc.kill(first.id);
      // Exited sessions do not count against the live limit.
      expect(svc.create({ command: 'sleep', args: ['1000'], source: 'agent' }).status).toBe('running');
    } finally {
      await svc.dispose();
    }
    expectPtyError(() => svc.create({ source: 'agent' }), 'disposed', /disposed/);
  });

  it('keeps a share of live sessions for the developer that agents cannot take', async () => {
    const svc = createPtyService({ env: isolatedEnv(), maxLiveSessions: 4, reservedUserSessions: 1 });
    try {
      for (const owner of ['a', 'b', 'c']) svc.create({ command: 'sleep', args: ['1000'], source: 'agent', owner });
      expectPtyError(() => svc.create({ command: 'sleep', args: ['1000'], source: 'agent', owner: 'd' }), 'session_limit', /kept for the developer/);
      expect(svc.create({ command: 'sleep', args: ['1000'], source: 'user' }).status).toBe('running');
    } finally {
      await svc.dispose();
    }
  });

  it('isolates listeners: one that throws breaks neither the service nor the others', async () => {
    const reported: string[] = [];
    const svc = createPtyService({ env: isolatedEnv(), onListenerError: (_error, context) => reported.push(context) });
    try {
      let dataSeen = 0;
      svc.on('pty.data', () => {
        throw new Error('broken listener');
      });
      svc.on('pty.data', () => dataSeen++);
      svc.on('pty.created', () => {
        throw new Error('broken listener');
      });
      const info = svc.create({ command: 'bash', args: ['-c', 'echo ok'], source: 'agent' });
      await waitForExit(svc, info.id);
      expect(readAll(svc, info.id).toString()).toBe('ok\r\n');
      expect(dataSeen).toBeGreaterThan(0);
      expect(reported).toContain("a 'pty.created' listener threw");
      expect(reported).toContain("a 'pty.data' listener threw");
    } finally {
      await svc.dispose();
    }
  });

  it('keeps a bounded number of exited sessions, evicting the oldest with pty.removed', async () => {
    const svc = createPtyService({ env: isolatedEnv(), maxExitedSessions: 2 });
    try {
      const removed: string[] = [];
      svc.on('pty.removed', (event) => removed.push(event.id));
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) {
        const info = svc.create({ command: 'true', source: 'agent', owner: 'churner' });
        ids.push(info.id);
        await waitForExit(svc, info.id);
      }
      expect(removed).toEqual([ids[0], ids[1]]);
      expect(svc.list().map((info) => info.id)).toEqual([ids[2], ids[3]]);
      await svc.remove(ids[2]!);
      expect(removed).toEqual([ids[0], ids[1], ids[2]]);
      expect(svc.get(ids[2]!)).toBeUndefined();
    } finally {
      await svc.dispose();
    }
  });

  it('keeps exited sessions per owner: one owner\'s churn never evicts another\'s or the developer\'s', async () => {
    const svc = createPtyService({ env: isolatedEnv(), maxExitedSessions: 2, maxExitedTotal: 5 });
    const exited = async (source: 'agent' | 'user', owner?: string) => {
      const info = svc.create({ command: 'true', source, ...(owner ? { owner } : {}) });
      await waitForExit(svc, info.id);
      return info.id;
    };
    try {
      const theirs = await exited('agent', 'quiet-agent');
      const mine = await exited('user');
      const churn: string[] = [];
      for (let i = 0; i < 6; i++) churn.push(await exited('agent', 'churning-agent'));
      expect(svc.get(theirs)?.status).toBe('exited');
      expect(svc.get(mine)?.status).toBe('exited');
      expect(svc.list().filter((info) => info.owner === 'churning-agent').map((info) => info.id)).toEqual(churn.slice(-2));
      // Past the total, the owner holding the most gives up its oldest.
      const other = [await exited('agent', 'third'), await exited('agent', 'third')];
      expect(svc.list()).toHaveLength(5);
      expect(svc.get(churn[4]!)).toBeUndefined();
      for (const id of [theirs, mine, churn[5]!, ...other]) expect(svc.get(id)?.status).toBe('exited');
    } finally {
      await svc.dispose();
    }
  });
});
