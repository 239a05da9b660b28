// What terminal_list's process scan holds the loop for, in CPU time, on figure 11's machine: `node bench/list-turns.mjs [rounds]`
// (after `npm run -s build`). In this process, figure 11's 100 sessions (a shell with 10 `sleep` children each);
// then, alternating in each round, the scan terminal_list made in one turn before (snapshotSessions) and the one it
// makes now (snapshotSessionsInTurns, as OwnedProcesses.list calls it, setImmediate between slices), each over 4 of
// the sessions. Per scan: its CPU time (user + system), the CPU time of its longest turn (from one yield to the
// next) and its count of turns. First while the processes are young (under 10 s: every stat line is read again at
// each scan, as on a machine where processes come and go), then once they have settled (a settled line is kept 10 s,
// process-facts.ts). CPU, not wall time: at load 20 a turn's wall time is the scheduler's.
import { createPtyService } from '@ptydeck/core';
import { snapshotSessions, snapshotSessionsInTurns } from '../packages/core/dist/pty/session-processes.js';
import { createWorkspace } from './lib/harness.mjs';
import { startSleepingSessions } from './lib/sleeping-sessions.mjs';

const rounds = Number(process.argv[2] ?? '16');
const SESSIONS = 100;
const CHILDREN = 10;

const workspace = createWorkspace();
const service = createPtyService({ env: workspace.env, maxLiveSessions: SESSIONS + 8 });
const cpuNow = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
try {
  const sessions = await startSleepingSessions(service, workspace, SESSIONS, CHILDREN);
  const refs = sessions.slice(0, 4).map((info) => ({ id: info.id, pid: info.pid, running: true }));
  // The first scan of a process learns its labels and command: a host's first list, apart.
  snapshotSessions(service.labels, refs);

  const oneTurn = () => {
    const start = cpuNow();
    snapshotSessions(service.labels, refs);
    const ms = cpuNow() - start;
    return { ms, longest: ms, turns: 1 };
  };
  const inTurns = async () => {
    const start = cpuNow();
    let turnStart = start;
    let longest = 0;
    let turns = 1;
    await snapshotSessionsInTurns(service.labels, refs, {}, () => {
      const at = cpuNow();
      longest = Math.max(longest, at - turnStart);
      turns++;
      return new Promise((resolve) =>
        setImmediate(() => {
          turnStart = cpuNow();
          resolve();
        }),
      );
    });
    const end = cpuNow();
    longest = Math.max(longest, end - turnStart);
    return { ms: end - start, longest, turns };
  };

  const phase = async (name, count) => {
    const a = [];
    const b = [];
    for (let round = 0; round < count; round++) {
      // Alternating, the order swapped each round.
      if (round % 2 === 0) {
        a.push(oneTurn());
        b.push(await inTurns());
      } else {
        b.push(await inTurns());
        a.push(oneTurn());
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const med = (values) => [...values].sort((x, y) => x - y)[values.length >> 1];
    const show = (rows) =>
      `CPU ${med(rows.map((r) => r.ms)).toFixed(2)} ms, longest turn ${med(rows.map((r) => r.longest)).toFixed(2)} ms (max ${Math.max(...rows.map((r) => r.longest)).toFixed(2)}), turns ${med(rows.map((r) => r.turns))}`;
    console.log(`${name}, ${count} rounds (medians): one turn: ${show(a)}; in turns: ${show(b)}`);
  };
  const processes = (await import('node:fs')).readdirSync('/proc').filter((entry) => /^\d+$/.test(entry)).length;
  console.log(`${processes} processes on the machine, load ${(await import('node:fs')).readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
  await phase('young processes', Math.min(rounds, 12));
  await new Promise((resolve) => setTimeout(resolve, 10_500));
  await phase('settled processes', rounds);
} finally {
  await service.dispose();
  workspace.dispose();
}
