import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPtyService } from '../pty/pty-service.js';
import { isolatedEnv } from '../testing/isolated-env.js';
import { waitForOutput } from '../testing/session-waits.js';
import type { PtyService } from '../pty/types.js';
import { portHolders } from './port-holders.js';
import { outlivedProcesses, sessionLeftovers, sessionsOf, snapshotSessions } from './session-processes.js';
import { until } from '../testing/poll-until.js';
import { running } from '../testing/carrying.js';

/**
 * The developer's own tabs close as a terminal window does, and what they
 * leave running on purpose stays known by the session id in its environment,
 * after the session itself is forgotten. Real shells, real jobs; Linux only.
 */

let service: PtyService;
/** Jobs meant to outlive their tab: the test ends them itself. */
const outliving: number[] = [];

beforeAll(() => {
  service = createPtyService({ env: isolatedEnv() });
});

afterAll(async () => {
  for (const pid of outliving) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await service.dispose();
});

const live = () => new Set(service.list().map((info) => info.id));

async function developerTab(): Promise<string> {
  const tab = service.create({ source: 'user', command: 'bash', args: ['--norc', '--noprofile', '-i'], env: { PS1: '$ ' } });
  await waitForOutput(service, tab.id, '$ ');
  return tab.id;
}

/** Types `line`, which prints `name=<pid>`, and returns the pid. */
async function started(id: string, line: string, name: string): Promise<number> {
  service.write(id, `${line}\r`);
  const output = await waitForOutput(service, id, new RegExp(`${name}=(\\d+)\\r\\n`));
  return Number(new RegExp(`${name}=(\\d+)\\r\\n`).exec(output)![1]);
}

describe.runIf(process.platform === 'linux')('processes of ptydeck sessions', () => {
  it("closing a developer's tab hangs up its foreground job and its plain jobs, leaves its nohup job running, still known as that tab's", async () => {
    const id = await developerTab();
    const detached = await started(id, 'nohup sleep 993 >/dev/null 2>&1 & echo "nohup=$!"', 'nohup');
    outliving.push(detached);
    const job = await started(id, 'sleep 992 & echo "job=$!"', 'job');
    const foreground = await started(id, `sh -c 'echo "fg=$$"; exec sleep 991'`, 'fg');

    await service.remove(id);
    expect(service.get(id)).toBeUndefined();
    expect(running(foreground), 'the foreground job got the hangup').toBe(false);
    // The shell passes the hangup on as it exits; the job ends on its own time, which only the process table shows.
    await until(() => !running(job), 'the shell passed the hangup on to its job');
    expect(running(detached), 'nohup lives on, as after closing a terminal window').toBe(true);
    expect(outlivedProcesses(live())?.get(id)).toEqual([{ pid: detached, command: 'sleep 993', startedAt: expect.any(Number), pgrp: expect.any(Number), startTicks: expect.any(Number) }]);
  });

  it('lists no process of a live session as outlived', async () => {
    const id = await developerTab();
    const detached = await started(id, 'nohup sleep 990 >/dev/null 2>&1 & echo "nohup=$!"', 'nohup');
    outliving.push(detached);
    const outlived = outlivedProcesses(live());
    expect(outlived?.has(id)).toBe(false);
    expect([...(outlived?.values() ?? [])].flat().map((proc) => proc.pid)).not.toContain(detached);
  });
});

describe('where /proc is missing (macOS)', () => {
  it('says nothing rather than guess: every lookup is left out or empty', () => {
    const platform = Object.getOwnPropertyDescriptor(process, 'platform')!;
    Object.defineProperty(process, 'platform', { ...platform, value: 'darwin' });
    try {
      const self = { id: 'no-proc', pid: process.pid, running: true };
      expect(snapshotSessions([self])).toBeUndefined();
      expect(outlivedProcesses(new Set())).toBeUndefined();
      expect(portHolders([22, 80])).toBeUndefined();
      expect(sessionLeftovers(self)).toEqual([]);
      expect(sessionsOf([process.pid], [self]).size).toBe(0);
    } finally {
      Object.defineProperty(process, 'platform', platform);
    }
  });
});
