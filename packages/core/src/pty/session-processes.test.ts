import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { listeningSockets } from '../proc/tcp-table.js';
import { ProcessFacts } from './process-facts.js';
import { offerStatTable, readStat } from '../proc/proc-fs.js';
import { until } from '../testing/poll-until.js';
import { SessionLabels } from './session-labels.js';
import { portHolders } from '../proc/port-holders.js';
import { sessionLeftovers, sessionsOf, snapshotSessions, snapshotSessionsInTurns } from './session-processes.js';

/**
 * Where /proc is missing. With real processes, session-processes.ts is tested
 * through what uses it: the process watch (process-watch.test.ts: ports, what
 * closed tabs and ended sessions left running), terminal_list and
 * terminal_close (agent/).
 */

describe('where /proc is missing (macOS)', () => {
  it('says nothing rather than guess: every lookup is left out or empty', () => {
    const platform = Object.getOwnPropertyDescriptor(process, 'platform')!;
    Object.defineProperty(process, 'platform', { ...platform, value: 'darwin' });
    try {
      const self = { id: 'no-proc', pid: process.pid, running: true };
      const labels = new SessionLabels();
      expect(snapshotSessions(labels, [self])).toBeUndefined();
      expect(snapshotSessions(labels, [], { outlived: true })).toBeUndefined();
      expect(portHolders([22, 80])).toBeUndefined();
      expect(sessionLeftovers(labels, self)).toEqual([]);
      expect(sessionsOf(labels, [process.pid], [self]).size).toBe(0);
      // Nothing to read in turns: none is taken.
      let turns = 0;
      void snapshotSessionsInTurns(labels, [self], {}, async () => void turns++, 0);
      expect(turns).toBe(0);
    } finally {
      Object.defineProperty(process, 'platform', platform);
    }
  });
});

describe.runIf(process.platform === 'linux')('snapshotSessionsInTurns', () => {
  it('reads the process table a slice at a time, a turn between slices, and finds what a scan in one turn finds', async () => {
    const labels = new SessionLabels();
    const child = spawn('sleep', ['31'], { stdio: 'ignore' });
    try {
      await until(() => readStat(child.pid!)?.name === 'sleep', 'the child to run sleep');
      const session = { id: 'in-turns', pid: child.pid!, running: true };
      let turns = 0;
      const sliced = await snapshotSessionsInTurns(labels, [session], {}, async () => void turns++, 0);
      expect(turns).toBeGreaterThan(1);
      expect(sliced?.get('in-turns')?.processes.map((proc) => proc.pid)).toEqual([child.pid]);
      expect(sliced).toEqual(snapshotSessions(labels, [session]));
    } finally {
      child.kill();
    }
  });

  it("walks for a new listener's holder in its turns too (learnHolders, which pauses within a process), and shows the port", async () => {
    const labels = new SessionLabels();
    const child = spawn(process.execPath, ['-e', "require('net').createServer().listen(0, '127.0.0.1', function () { console.log(this.address().port) })"], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const learn = vi.spyOn(ProcessFacts.prototype, 'learnHolders');
    try {
      const [line] = (await once(child.stdout!, 'data')) as [Buffer];
      const port = Number(line.toString().trim());
      const inode = [...listeningSockets()!].find(([, socket]) => socket.port === port)![0];
      const session = { id: 'listener', pid: child.pid!, running: true };
      const yieldTurn = async () => {};
      const sliced = await snapshotSessionsInTurns(labels, [session], {}, yieldTurn, 0);
      expect(learn.mock.calls.some(([listening, , turn]) => listening.has(inode) && turn === yieldTurn)).toBe(true);
      expect(sliced?.get('listener')?.ports).toEqual([expect.objectContaining({ port, pid: child.pid, inode })]);
    } finally {
      learn.mockRestore();
      child.kill();
    }
  });
});

describe.runIf(process.platform === 'linux')('a stat table offered for the turn (a request\'s early look)', () => {
  it("stands for every read, but a session's own process it does not list (started since it was read) is read now", async () => {
    const labels = new SessionLabels();
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      await until(() => readStat(child.pid!)?.name === 'sleep', 'the child to run sleep');
      const session = { id: 'offered', pid: child.pid!, running: true };
      // A table read before the session's process started: it lists neither that process nor any other.
      offerStatTable({ pids: [], stats: new Map() });
      const snapshot = snapshotSessions(labels, [session])?.get('offered');
      expect(snapshot?.processes.map((proc) => proc.pid)).toEqual([child.pid]);
    } finally {
      child.kill();
    }
  });
});
