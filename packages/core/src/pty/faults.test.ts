import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isolatedHome } from '../testing/isolated-env.js';
import { until } from '../testing/poll-until.js';
import { survivorsOf } from '../testing/process-table.js';
import { recordFigure } from '../testing/figures.js';
import { createPtyService } from './pty-service.js';
import { readAll, waitForExit, waitForOutput } from '../testing/session-waits.js';
import type { PtyService } from './types.js';

/**
 * Faults injected into sessions: a child SIGKILLed mid-output and mid-paste,
 * a child that ignores SIGHUP and SIGTERM. The service reports each one, ends
 * what it must, leaves no process behind and keeps other sessions intact.
 */
const KILL_GRACE_MS = 400;
let service: PtyService;

beforeEach(() => {
  service = createPtyService({ env: { ...process.env, HOME: isolatedHome() }, killGraceMs: KILL_GRACE_MS });
});
afterEach(async () => {
  await service.dispose();
});

/** A bystander session whose output is checked byte for byte after the fault. */
async function bystander(): Promise<{ id: string; check: () => Promise<void> }> {
  const { id } = service.create({ source: 'user', command: 'cat', title: 'bystander' });
  service.write(id, 'before\r');
  const before = await waitForOutput(service, id, 'before\r\nbefore\r\n');
  return {
    id,
    check: async () => {
      expect(service.get(id)?.status).toBe('running');
      expect(readAll(service, id).toString('utf8')).toBe(before);
      service.write(id, 'after\r');
      await waitForOutput(service, id, `${before}after\r\nafter\r\n`);
    },
  };
}

describe('faults', () => {
  it('a child SIGKILLed mid-output: exit says SIGKILL, the log stays consistent, nothing survives, others untouched', async () => {
    const other = await bystander();
    const { id, pid } = service.create({ source: 'user', command: 'yes', args: ['flood'] });
    // Mid-output: well into the stream, while it is still writing.
    await new Promise<void>((resolve) => {
      const off = service.on('pty.data', (event) => {
        if (event.id === id && event.cursor > 256 * 1024) {
          off();
          resolve();
        }
      });
    });
    process.kill(pid, 'SIGKILL');
    expect(await waitForExit(service, id)).toEqual({ exitCode: null, signal: 'SIGKILL' });
    const all = service.read(id, { cursor: 0 });
    expect(all.skipped + all.data.length).toBe(all.end);
    const text = Buffer.from(all.data).toString('utf8');
    // Every complete line is the line yes writes; only the last may be cut short by the kill.
    const lines = text.split('\r\n');
    lines.pop();
    expect(lines.length).toBeGreaterThan(1000);
    expect(lines.slice(1).every((line) => line === 'flood')).toBe(true);
    expect(() => service.write(id, 'x')).toThrow(expect.objectContaining({ code: 'not_running' }));
    await until(() => survivorsOf([pid]).length === 0, `nothing of session ${pid} is alive`);
    await other.check();
    recordFigure('faultSigkillMidOutput', 1, { bytesBeforeKill: all.end });
  });

  it('input still queued for a session killed mid-paste never reaches the next session that gets its descriptor', async () => {
    // The child stops reading (raw mode, then sleep), so a large paste stays queued
    // in the core when the child is killed. A session started right then gets the
    // freed descriptor number; the queued input must be dropped, not written to it.
    const TRIES = 12;
    let leaked = 0;
    for (let i = 0; i < TRIES; i++) {
      const a = service.create({ source: 'user', command: 'sh', args: ['-c', 'stty raw -echo; echo ready; exec sleep 1000'] });
      await waitForOutput(service, a.id, 'ready');
      service.write(a.id, 'x'.repeat(256 * 1024));
      const next = new Promise<string>((resolve) => {
        const off = service.on('pty.exited', (event) => {
          if (event.id !== a.id) return;
          off();
          resolve(service.create({ source: 'user', command: 'cat' }).id);
        });
      });
      process.kill(a.pid, 'SIGKILL');
      const b = await next;
      service.write(b, 'mark\r');
      // A leak fills cat's line with x's (and may swallow the mark): either ends the wait.
      const seen = await waitForOutput(service, b, /mark\r\nmark\r\n|x/);
      if (seen.includes('x')) leaked++;
      await service.remove(b);
      await service.remove(a.id);
    }
    expect(leaked, `tries in which a killed session's input reached the next session (of ${TRIES})`).toBe(0);
    recordFigure('faultSigkillMidPaste', TRIES);
  });

  it('a child ignoring SIGHUP and SIGTERM survives those signals, and kill, remove and dispose end it with SIGKILL', async () => {
    const other = await bystander();
    // Ignored signals stay ignored across exec, so the sleep child ignores them too.
    const stubborn = () => service.create({ source: 'user', command: 'sh', args: ['-c', "trap '' HUP TERM; echo armed; sleep 1000 & wait; sleep 1000"] });
    const first = stubborn();
    await waitForOutput(service, first.id, 'armed');
    await service.kill(first.id, 'SIGTERM');
    await service.kill(first.id, 'SIGHUP');
    expect(service.get(first.id)?.status, 'SIGTERM and SIGHUP are ignored').toBe('running');
    await service.kill(first.id);
    expect(service.get(first.id)).toMatchObject({ status: 'exited', signal: 'SIGKILL' });
    expect(survivorsOf([first.pid])).toEqual([]);

    const second = stubborn();
    await waitForOutput(service, second.id, 'armed');
    await service.remove(second.id);
    expect(service.get(second.id)).toBeUndefined();
    expect(survivorsOf([second.pid])).toEqual([]);

    const third = stubborn();
    await waitForOutput(service, third.id, 'armed');
    await other.check();
    await service.dispose();
    expect(survivorsOf([third.pid, other.id ? service.list().find((s) => s.id === other.id)?.pid ?? 0 : 0])).toEqual([]);
    recordFigure('faultIgnoresHupTerm', 3);
  });
});
