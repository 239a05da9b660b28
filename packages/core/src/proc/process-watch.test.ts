import { spawn } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LeftoverSession } from '@ptydeck/contract';
import { createPtyService } from '../pty/pty-service.js';
import { isolatedEnv } from '../testing/isolated-env.js';
import { waitForExit, waitForInfo, waitForOutput } from '../testing/session-waits.js';
import type { PtyService } from '../pty/types.js';
import { ProcessWatch } from './process-watch.js';
import { snapshotSessions, type SessionRef } from './session-processes.js';

/**
 * The panel's view of what sessions run, with real shells and real servers:
 * ports on SessionInfo while a panel watches, nothing read while none does,
 * and the processes an ended session left running, ended on request.
 */

const BASH = ['--norc', '--noprofile'];
let service: PtyService;
let watch: ProcessWatch;
/** Every scan of the process table the watch makes, through its seam. */
let scans: number;

beforeEach(() => {
  service = createPtyService({ env: isolatedEnv() });
  scans = 0;
  watch = new ProcessWatch(service, {
    intervalMs: 50,
    scan: (sessions: readonly SessionRef[]) => {
      scans++;
      return snapshotSessions(sessions);
    },
  });
});

afterEach(async () => {
  watch.dispose();
  await service.dispose();
});

/** Starts a Python HTTP server on a free loopback port in the session and resolves with its port once it serves. */
async function startServer(id: string): Promise<number> {
  service.write(id, 'python3 -m http.server 0 --bind 127.0.0.1\r');
  const output = await waitForOutput(service, id, /port (\d+)/);
  return Number(/port (\d+)/.exec(output)![1]);
}

function leftoversOnce(holds: (sessions: LeftoverSession[]) => boolean): Promise<LeftoverSession[]> {
  return new Promise((resolve) => {
    if (holds(watch.leftovers())) return resolve(watch.leftovers());
    const off = watch.onLeftovers((sessions) => {
      if (!holds(sessions)) return;
      off();
      resolve(sessions);
    });
  });
}

describe.runIf(process.platform === 'linux')('ProcessWatch', () => {
  it("puts a server's port on its session's info within a look, and takes it off once the server is gone", async () => {
    const { id } = service.create({ source: 'user', command: 'bash', args: BASH });
    const stop = watch.watch();
    const port = await startServer(id);
    const listed = await waitForInfo(service, id, (info) => info.ports?.some((entry) => entry.port === port) ?? false);
    const entry = listed.ports!.find((candidate) => candidate.port === port)!;
    expect(entry.address).toBe('127.0.0.1');
    expect(entry.command).toContain('http.server');
    // Ctrl-C ends the server: the port goes from the session's info.
    service.write(id, '\x03');
    await waitForInfo(service, id, (info) => info.ports !== undefined && info.ports !== null && !info.ports.some((candidate) => candidate.port === port));
    stop();
  });

  it('reads nothing while no panel watches, and looks again once one does', async () => {
    const { id } = service.create({ source: 'user', command: 'bash', args: BASH });
    // A server that starts and listens while nobody watches: no look, no scan, no port.
    const port = await startServer(id);
    expect(watch.stats).toEqual({ looks: 0, scans: 0 });
    expect(scans).toBe(0);
    expect(service.get(id)!.ports).toBeUndefined();

    const stop = watch.watch();
    await waitForInfo(service, id, (info) => info.ports?.some((entry) => entry.port === port) ?? false);
    stop();
    const after = { ...watch.stats };
    const scansAfter = scans;
    // Ended while nobody watches: the port stays as last seen, nothing is read.
    service.write(id, '\x03');
    service.write(id, 'echo done-$((6*7))\r');
    await waitForOutput(service, id, 'done-42');
    expect(watch.stats).toEqual(after);
    expect(scans).toBe(scansAfter);
    expect(service.get(id)!.ports!.some((entry) => entry.port === port)).toBe(true);
  });

  it('lists what an ended session left running, ends it on request, and refuses a pid the session does not own', async () => {
    const { id } = service.create({ source: 'user', command: 'bash', args: BASH });
    const stop = watch.watch();
    service.write(id, 'nohup sleep 987 >/dev/null 2>&1 & echo started-$!\r');
    const pid = Number(/started-(\d+)/.exec(await waitForOutput(service, id, /started-\d+/))![1]);
    service.write(id, 'exit\r');
    await waitForExit(service, id);
    const [left] = await leftoversOnce((sessions) => sessions.some((session) => session.id === id));
    expect(left!.processes.map((proc) => proc.pid)).toContain(pid);
    expect(left!.processes.find((proc) => proc.pid === pid)!.command).toBe('sleep 987');
    expect(left!.known).toBe(true);

    // Our own pid and init are no session's: refused, never signalled.
    const result = await watch.end(id, [pid, process.pid, 1]);
    expect(result.ended).toEqual([{ pid, command: 'sleep 987' }]);
    expect(result.notEnded).toEqual([]);
    expect(result.refused.sort()).toEqual([1, process.pid].sort());
    await leftoversOnce((sessions) => !sessions.some((session) => session.id === id));
    stop();
  });

  it('keeps a removed session findable while it has processes left', async () => {
    const { id } = service.create({ source: 'user', command: 'bash', args: BASH, title: 'dev tab' });
    const stop = watch.watch();
    service.write(id, 'setsid nohup sleep 986 >/dev/null 2>&1 < /dev/null & echo started-$!\r');
    await waitForOutput(service, id, /started-\d+/);
    await service.remove(id);
    const [left] = await leftoversOnce((sessions) => sessions.some((session) => session.id === id && session.processes.some((proc) => proc.command === 'sleep 986')));
    expect(left).toMatchObject({ id, title: 'dev tab', source: 'user', known: false });
    expect(watch.query(id)!.map((proc) => proc.command)).toContain('sleep 986');
    const result = await watch.end(id, left!.processes.map((proc) => proc.pid));
    expect(result.ended.map((proc) => proc.command)).toContain('sleep 986');
    await leftoversOnce((sessions) => sessions.length === 0);
    // Found to have nothing left, it is forgotten.
    expect(() => watch.query(id)).toThrow(/no session/);
    stop();
  });

  it("does not take a reused pid's POSIX session for what an ended session left", async () => {
    // A session leader (detached: setsid) standing in for a process that got an ended session's pid.
    const leader = spawn('sleep', ['982'], { detached: true, stdio: 'ignore' });
    try {
      await new Promise<void>((resolve, reject) => leader.once('spawn', resolve).once('error', reject));
      const ended = { id: 'ended-long-ago', pid: leader.pid!, running: false };
      expect(snapshotSessions([ended])!.get(ended.id)!.processes).toEqual([]);
    } finally {
      leader.kill('SIGKILL');
    }
  });
});
