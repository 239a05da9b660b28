// terminal_list from two or more checkouts, interleaved in one run, on a machine holding figure 11's process
// table: `node bench/compare-list.mjs <checkout>,<checkout> [rounds] [calls]`. Each checkout gets a host of its
// own (its bench/lib/hosts.mjs) holding its share of 100 sessions (figure 11's: a shell with 10 `sleep`
// children each, so the machine holds 1100 processes of ptydeck sessions), and an SDK client in a process of
// its own with 4 terminals of its own, each with a job in the background. Each round makes `calls` terminal_list
// calls, one after another, on every checkout in turn, the order rotating. Per checkout: the host's main thread
// CPU per call (schedstat, per round), the longest turn of its loop during the round's calls (a 1 ms timer's
// lateness, core-host.mjs loopDelayStart), and the calls' wall time; median and quartiles of the rounds.
// Every call's result is checked: each terminal lists its job.
import { readdirSync, readFileSync } from 'node:fs';
import { loadCheckouts } from './lib/checkouts.mjs';

const [trees, roundsArg = '12', callsArg = '10'] = process.argv.slice(2);
if (!trees) throw new Error('usage: node bench/compare-list.mjs <checkout>[,<checkout>...] [rounds] [calls]');
const rounds = Number(roundsArg);
const calls = Number(callsArg);
const SESSIONS = 100;
const CHILDREN = 10;
const TERMINALS = 4;

const checkouts = await loadCheckouts(trees);
const sides = [];
const q = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];
const spread = (values, digits = 2) => `${q(values, 0.5).toFixed(digits)} [${q(values, 0.25).toFixed(digits)}, ${q(values, 0.75).toFixed(digits)}]`;
try {
  const share = Math.ceil(SESSIONS / checkouts.length);
  for (const checkout of checkouts) {
    const workspace = checkout.harness.createWorkspace();
    const side = { ...checkout, workspace, mainMs: [], longestMs: [], walls: [] };
    sides.push(side);
    side.host = await checkout.hosts.startCoreHost(workspace, { maxSessions: share + TERMINALS + 8 });
    // Figure 11's sessions: each says "ready" once its sleeps run.
    const sleeps = `for i in $(seq ${CHILDREN}); do sleep 1000 & done; echo ready; wait`;
    const input = { command: workspace.bash, args: ['--norc', '--noprofile', '-c', sleeps], cwd: workspace.home, env: workspace.env };
    const ids = await side.host.request('createMany', { inputs: Array.from({ length: share }, () => input) });
    for (const id of ids) await side.host.request('waitForEnd', { id, target: 'ready'.length });
    side.agent = await checkout.hosts.startAgentHost(workspace);
    await side.agent.request('connect', { url: side.host.ready.url, token: side.host.ready.agentToken });
    side.terminals = [];
    for (let i = 0; i < TERMINALS; i++) {
      const { id } = await side.agent.request('call', { name: 'terminal_create', args: { cwd: workspace.home } });
      await side.agent.request('call', { name: 'terminal_run', args: { id, command: `sleep 99${i} &` } });
      side.terminals.push(id);
    }
    await list(side);
  }
  const processes = readdirSync('/proc').filter((name) => /^\d+$/.test(name)).length;
  const loadBefore = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < sides.length; k++) {
      const side = sides[(k + round) % sides.length];
      const pid = side.host.pid;
      await side.host.request('loopDelayStart');
      const before = side.threads.threadTimes(pid);
      for (let i = 0; i < calls; i++) side.walls.push(await list(side));
      const split = side.threads.threadSplit(pid, before, side.threads.threadTimes(pid));
      const delay = await side.host.request('loopDelayStop');
      side.mainMs.push(split.main.cpuMs / calls);
      side.longestMs.push(delay.max);
    }
  }
  const loadAfter = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(`${rounds} rounds x ${calls} terminal_list calls (${TERMINALS} terminals each), ${processes} processes on the machine, load ${loadBefore} -> ${loadAfter}; median [quartiles] of the rounds`);
  for (const side of sides) {
    console.log(`${side.name.padEnd(16)} main CPU/call ${spread(side.mainMs)} ms  longest loop turn ${spread(side.longestMs, 1)} ms (max ${Math.max(...side.longestMs).toFixed(1)})  wall/call ${spread(side.walls, 1)} ms`);
  }
} finally {
  for (const side of sides) {
    await side.agent?.stop().catch(() => {});
    await side.host?.stop().catch(() => {});
    side.workspace.dispose();
  }
}

/** One terminal_list, timed from the call to its result; throws unless every terminal lists its job. */
async function list(side) {
  const started = performance.now();
  const result = await side.agent.request('call', { name: 'terminal_list', args: {} });
  const ms = performance.now() - started;
  for (const [i, id] of side.terminals.entries()) {
    const terminal = result.terminals.find((t) => t.id === id);
    if (!terminal?.background?.some((proc) => proc.command === `sleep 99${i}`)) throw new Error(`terminal_list: ${id} does not list its job: ${JSON.stringify(terminal)}`);
  }
  return ms;
}
