import { describe, expect, it } from 'vitest';
import { SessionLabels } from './session-labels.js';
import { portHolders } from '../proc/port-holders.js';
import { learnProcesses, sessionLeftovers, sessionsOf, snapshotSessions } from './session-processes.js';

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
      // Nothing to read ahead: no turn is taken.
      let turns = 0;
      void learnProcesses(async () => void turns++, 0);
      expect(turns).toBe(0);
    } finally {
      Object.defineProperty(process, 'platform', platform);
    }
  });
});

describe.runIf(process.platform === 'linux')('learnProcesses', () => {
  it("reads every process's facts a slice at a time, a turn between slices, and a snapshot after it finds what it did without", async () => {
    const labels = new SessionLabels();
    const self = { id: 'learn', pid: process.pid, running: true };
    // No time to spare: a turn before each process read, and one before the socket tables.
    let turns = 0;
    await learnProcesses(async () => void turns++, 0);
    expect(turns).toBeGreaterThan(1);
    expect(snapshotSessions(labels, [self])?.get('learn')).toMatchObject({ processes: [], ports: [] });
  });
});
