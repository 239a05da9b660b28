// Figure 4's terminal_run from two or more checkouts, interleaved in one run, for a before/after that
// shares the machine's moment: `node bench/compare-agent-calls.mjs <checkout>,<checkout> [rounds] [calls] [command] [warmup]`.
// Each checkout gets a host of its own and an SDK client in a process of its own (its bench/lib/hosts.mjs,
// agent-host.mjs), one shell, first called `warmup` times (default 10; the figure warms with 400: V8 is
// still optimizing the call's path for hundreds of calls); each round runs `calls` terminal_run calls on every checkout in turn, the
// order rotating. Per checkout: the host's main thread CPU per call (schedstat, per round: median and
// quartiles of the rounds), the other threads' beside it, and the calls' wall p50 and quartiles. On a
// loaded machine the CPU moves far less than the wall times do. The bench's own figure 4 is
// `node bench/run.mjs --only=4`.
import { readFileSync } from 'node:fs';
import { loadCheckouts } from './lib/checkouts.mjs';

const [trees, roundsArg = '20', callsArg = '20', command = 'true', warmupArg = '10'] = process.argv.slice(2);
if (!trees) throw new Error('usage: node bench/compare-agent-calls.mjs <checkout>[,<checkout>...] [rounds] [calls] [command] [warmup]');
const rounds = Number(roundsArg);
const calls = Number(callsArg);
const warmup = Number(warmupArg);
const expected = command === 'true' ? '' : command.replace(/^echo /, '');

const checkouts = await loadCheckouts(trees);
const sides = [];
try {
  for (const checkout of checkouts) {
    const workspace = checkout.harness.createWorkspace();
    const side = { ...checkout, workspace, mainMs: [], otherMs: [], walls: [] };
    sides.push(side);
    side.host = await checkout.hosts.startCoreHost(workspace);
    side.agent = await checkout.hosts.startAgentHost(workspace);
    await side.agent.request('connect', { url: side.host.ready.url, token: side.host.ready.agentToken });
    side.id = (await side.agent.request('call', { name: 'terminal_create', args: { cwd: workspace.home } })).id;
    for (let i = 0; i < warmup; i++) await side.agent.request('run', { id: side.id, command, expected });
  }
  const loadBefore = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < sides.length; k++) {
      const side = sides[(k + round) % sides.length];
      const pid = side.host.pid;
      const before = side.threads.threadTimes(pid);
      for (let i = 0; i < calls; i++) side.walls.push(await side.agent.request('run', { id: side.id, command, expected }));
      const split = side.threads.threadSplit(pid, before, side.threads.threadTimes(pid));
      side.mainMs.push(split.main.cpuMs / calls);
      side.otherMs.push(split.others.reduce((sum, t) => sum + t.cpuMs, 0) / calls);
    }
  }
  const loadAfter = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  const q = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];
  const spread = (values) => `${q(values, 0.5).toFixed(3)} [${q(values, 0.25).toFixed(3)}, ${q(values, 0.75).toFixed(3)}]`;
  console.log(`${rounds} rounds x ${calls} calls of \`${command}\`, load ${loadBefore} -> ${loadAfter}; median [quartiles]`);
  for (const side of sides) {
    console.log(`${side.name.padEnd(22)} main CPU/call ${spread(side.mainMs)} ms  other threads ${spread(side.otherMs)} ms  wall ${spread(side.walls)} ms`);
  }
} finally {
  for (const side of sides) {
    await side.agent?.stop().catch(() => {});
    await side.host?.stop().catch(() => {});
    side.workspace.dispose();
  }
}
