// What the process watch's timer looks hold the host's main thread for, per turn of the loop, on figure 11's machine:
// `node bench/watch-turns.mjs [rounds] [before-core-dist]` (after `npm run -s build`; before-core-dist is another
// build's packages/core/dist, e.g. main's, to compare with, alternating in each round, the order swapped each round).
// In this process, figure 11's 100 sessions (a shell with 10 `sleep` children each); each round, per build, a
// ProcessWatch looking every 1 ms over TABLES_EVERY_LOOKS + 1 looks (so at least one reads the socket tables
// whatever the TCP socket count says; on a busy machine most do), in half the rounds with a rescan (a scan in slices) too. Per round: the
// process's CPU time (see threadCpu) of its longest turn (from one setImmediate tick to the next), and of all the turns. The first watcher's look, in one turn by
// design, is taken before the meter starts. CPU, not wall time: at load 20 a turn's wall time is the scheduler's.
import { readFileSync, readdirSync } from 'node:fs';
import { createPtyService } from '@ptydeck/core';
import { createWorkspace } from './lib/harness.mjs';

const rounds = Number(process.argv[2] ?? '12');
const beforeDist = process.argv[3];
const SESSIONS = 100;
const CHILDREN = 10;

const builds = [{ name: 'this build', dist: new URL('../packages/core/dist/', import.meta.url).href }];
if (beforeDist) builds.unshift({ name: 'before', dist: new URL(`file://${beforeDist.replace(/\/?$/, '/')}`).href });
for (const build of builds) {
  build.ProcessWatch = (await import(`${build.dist}facts/process-watch.js`)).ProcessWatch;
  build.SessionFacts = (await import(`${build.dist}facts/session-facts.js`)).SessionFacts;
  build.every = (await import(`${build.dist}facts/process-watch.js`)).TABLES_EVERY_LOOKS;
  build.rows = {};
}

/**
 * The process's CPU time in ms (user + system, every thread's: a thread-pool read made during a turn counts in it,
 * so this build's figures are an upper bound). Not the main thread's schedstat: for a thread on the CPU it moves
 * only at the scheduler's ticks (4 ms here), which read as turns of 0 or 4 ms.
 */
const threadCpu = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

const workspace = createWorkspace();
const service = createPtyService({ env: workspace.env, maxLiveSessions: SESSIONS + 8 });
try {
  const ready = new Map();
  const off = service.on('pty.data', (event) => {
    if (new TextDecoder().decode(event.data).includes('ready')) ready.get(event.id)?.();
  });
  const sleeps = `for i in $(seq ${CHILDREN}); do sleep 1000 & done; echo ready; wait`;
  await Promise.all(
    Array.from({ length: SESSIONS }, () => {
      const info = service.create({ source: 'user', command: workspace.bash, args: ['--norc', '--noprofile', '-c', sleeps], cwd: workspace.home });
      return new Promise((resolve) => ready.set(info.id, () => resolve(info)));
    }),
  );
  off();

  const measure = async (build, rescan) => {
    const facts = new build.SessionFacts(service);
    const watch = new build.ProcessWatch(service, facts, { intervalMs: 1 });
    const stop = watch.watch();
    const from = watch.stats.looks;
    let last = threadCpu();
    const start = last;
    let longest = 0;
    let turns = 0;
    let ticking = true;
    const tick = () => {
      const now = threadCpu();
      longest = Math.max(longest, now - last);
      turns++;
      last = threadCpu();
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    if (rescan) watch.rescan();
    while (watch.stats.looks <= from + build.every) await new Promise((resolve) => setTimeout(resolve, 5));
    ticking = false;
    const total = threadCpu() - start;
    stop();
    watch.dispose();
    facts.dispose();
    return { longest, total, turns, looks: watch.stats.looks - from, scans: watch.stats.scans };
  };

  // The socket tables' read alone, alternating: in one turn (listeningSockets, as a look read them before) and on
  // the thread pool (listeningSocketsOffThread: the CPU of the turn that starts it, and its wall time to the answer).
  const { listeningSockets, listeningSocketsOffThread } = await import(`${builds.at(-1).dist}proc/tcp-table.js`);
  const inTurn = [];
  const offTurn = [];
  const offWall = [];
  for (let i = 0; i < 40; i++) {
    let at = threadCpu();
    listeningSockets();
    inTurn.push(threadCpu() - at);
    at = threadCpu();
    const read = listeningSocketsOffThread();
    offTurn.push(threadCpu() - at);
    const wall = performance.now();
    await read;
    offWall.push(performance.now() - wall);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const median = (values) => [...values].sort((x, y) => x - y)[values.length >> 1].toFixed(3);
  console.log(
    `the tables' read, 40 each (median, max): in one turn ${median(inTurn)}, ${Math.max(...inTurn).toFixed(3)} ms of CPU; ` +
      `off thread, its turn ${median(offTurn)}, ${Math.max(...offTurn).toFixed(3)} ms of CPU, answered in ${median(offWall)} ms`,
  );
  console.log(
    `${readdirSync('/proc').filter((entry) => /^\d+$/.test(entry)).length} processes on the machine, load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`,
  );
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? builds : [...builds].reverse();
    for (const build of order) (build.rows[round % 4 < 2 ? 'looks' : 'scans'] ??= []).push(await measure(build, round % 4 >= 2));
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const med = (values) => [...values].sort((x, y) => x - y)[values.length >> 1];
  for (const { name, rows: kinds } of builds) {
    for (const [kind, rows] of Object.entries(kinds)) {
      console.log(
        `${name}, ${kind === 'looks' ? 'looks alone' : 'looks and a rescan'}, ${rows.length} rounds (medians): longest turn ${med(rows.map((r) => r.longest)).toFixed(2)} ms of CPU (max ${Math.max(...rows.map((r) => r.longest)).toFixed(2)}), ` +
          `all turns ${med(rows.map((r) => r.total)).toFixed(2)} ms in ${med(rows.map((r) => r.turns))} turns over ${med(rows.map((r) => r.looks))} looks, ${med(rows.map((r) => r.scans))} scans (the first watcher's one among them)`,
      );
    }
  }
  console.log(`load after ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
} finally {
  await service.dispose();
  workspace.dispose();
}
