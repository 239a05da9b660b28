// Figure 11: the cost of one scan of what sessions run. 100 real sessions
// (figure 5's count), each a shell with 10 `sleep` children, so the machine
// holds 1000 processes of ptydeck sessions besides its own; one
// snapshotSessions over the 100 (pty/session-processes.ts: the process
// table, each session's tree, POSIX session and PTYDECK_SESSION_ID, its
// processes' command lines and socket descriptors, the kernel's TCP tables)
// is what terminal_list and a panel's port watcher pay per look, once the
// first scan has learned what stays true of a process (pty/process-facts.ts;
// the first scan is reported apart). Measured in
// this process's CPU time (user + system: reading /proc is mostly the
// kernel's work), the median of the scans. Baseline: a bare readdir of /proc,
// the least any scan of the process table pays, alternating with the scan.
import { readdirSync } from 'node:fs';
import { createPtyService } from '@ptydeck/core';
import { snapshotSessions } from '../packages/core/dist/pty/session-processes.js';
import { median, onCleanup, row } from './lib/harness.mjs';
import { startSleepingSessions } from './lib/sleeping-sessions.mjs';

const CHILDREN = 10;
const SCANS = 20;
/** How often a panel showing ports scans, at most. */
const CADENCE_MS = 2000;
const TARGET_MS = 20;

export async function run(ctx) {
  const { workspace, sizes } = ctx;
  if (process.platform !== 'linux') return { rows: [row({ figure: '11', metric: 'process scan: no /proc here, nothing scanned', pass: null })], details: {} };
  const n = sizes.scaleSessions;
  const service = createPtyService({ env: workspace.env, maxLiveSessions: n + 8 });
  const stop = onCleanup(() => service.dispose());
  try {
    const sessions = await startSleepingSessions(service, workspace, n, CHILDREN);
    const refs = sessions.map((info) => ({ id: info.id, pid: info.pid, running: true }));
    const machineProcesses = readdirSync('/proc').filter((name) => /^\d+$/.test(name)).length;

    let snapshot;
    const first = cpuMs(() => (snapshot = snapshotSessions(service.labels, refs)));
    const owned = [...snapshot.values()].reduce((sum, s) => sum + s.processes.length, 0);
    if (owned !== n * (CHILDREN + 1)) throw new Error(`the scan found ${owned} processes of the ${n} sessions, not ${n * (CHILDREN + 1)}`);

    const scan = [];
    const bare = [];
    for (let i = 0; i < SCANS; i++) {
      // At a panel's cadence: what a scan keeps of a process's stat line ages as it does there.
      await new Promise((resolve) => setTimeout(resolve, CADENCE_MS));
      bare.push(cpuMs(() => readdirSync('/proc')));
      scan.push(cpuMs(() => snapshotSessions(service.labels, refs)));
    }
    const value = median(scan);
    const baseline = median(bare);
    ctx.log(`  ${n} sessions, ${owned} of their processes, ${machineProcesses} on the machine: scan ${value.toFixed(2)} ms CPU (median of ${SCANS}), readdir /proc ${baseline.toFixed(3)} ms`);
    const rows = [
      row({
        figure: '11',
        metric: `one scan of ${n} sessions, ${owned} processes (${machineProcesses} on the machine): CPU (ms)`,
        value,
        baseline,
        target: `< ${TARGET_MS} ms`,
        pass: value < TARGET_MS,
        note: `median of ${SCANS}, one every ${CADENCE_MS / 1000} s; baseline: readdir of /proc`,
      }),
      row({ figure: '11', metric: '  the first scan, nothing known of the processes yet: CPU (ms)', value: first, baseline, pass: null }),
    ];
    return { rows, details: { sessions: n, owned, machineProcesses, first, scan, bare } };
  } finally {
    stop();
    await service.dispose();
  }
}

/** CPU time (user + system) of this process while `work` runs, in ms. */
function cpuMs(work) {
  const before = process.cpuUsage();
  work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}
