// Figure 4: agent tool cost. terminal_run of `true` and of `echo hi` in one
// persistent shell, called through MCP with the official SDK client over
// Streamable HTTP; against spawning `bash -c <command>` per call with
// child_process, which is what one-shot agent tools do. Calls alternate
// between the two so both see the same load.
//
// Each side is timed in a fresh process of its own started for the figure,
// not in the bench process, whose size and garbage depend on the figures that
// ran in it before: the SDK client in agent-host.mjs, and the spawn in a
// second host (core-host.mjs with no session, its spawnBash op). Fork's cost
// follows the size of the process that forks (from the bench process: 3 ms
// in run 1 of a --repeat run, 18 to 22 ms in runs 2 and 3), and a
// host-sized process is what the comparison is about: the same process
// spawning per command instead of keeping one shell.
//
// Both fresh processes are warmed up first (sizes.toolWarmup calls a command,
// alternated as the measured ones): the host an agent calls has been running,
// and in the first few hundred calls of a fresh one V8 was still compiling the
// call's path (bench/README.md, "Figure 4's warm-up"). The CPU each side spent
// per measured call is in the figure's details.
import { row, summarize } from './lib/harness.mjs';
import { startAgentHost, startCoreHost } from './lib/hosts.mjs';
import { threadSplit, threadTimes } from './lib/thread-cpu.mjs';

/** CPU per call (ms) of a process between two threadTimes() readings: its main thread and all its threads. */
function cpuPerCall(pid, before, after, calls) {
  const { main, others } = threadSplit(pid, before, after);
  const all = main.cpuMs + others.reduce((sum, t) => sum + t.cpuMs, 0);
  return { main: main.cpuMs / calls, all: all / calls };
}

export async function run(ctx) {
  const { workspace, sizes } = ctx;
  const host = await startCoreHost(workspace);
  let spawnHost;
  let agent;
  const rows = [];
  const details = {};
  try {
    spawnHost = await startCoreHost(workspace);
    agent = await startAgentHost(workspace);
    await agent.request('connect', { url: host.ready.url, token: host.ready.agentToken });
    const { id } = await agent.request('call', { name: 'terminal_create', args: { cwd: workspace.home } });
    const terminalRun = (command, expected) => agent.request('run', { id, command, expected });
    const spawnBash = (command, expected) =>
      spawnHost.request('spawnBash', { bash: workspace.bash, command, env: workspace.env, cwd: workspace.home, expected });
    for (const command of ['true', 'echo hi']) {
      const expected = command === 'true' ? '' : 'hi';
      for (let i = 0; i < sizes.toolWarmup; i++) {
        await terminalRun(command, expected);
        await spawnBash(command, expected);
      }
      const core = [];
      const baseline = [];
      const pids = [host.pid, agent.pid, spawnHost.pid];
      const before = pids.map((pid) => threadTimes(pid));
      for (let i = 0; i < sizes.toolCalls; i++) {
        if (i % 2 === 0) {
          baseline.push(await spawnBash(command, expected));
          core.push(await terminalRun(command, expected));
        } else {
          core.push(await terminalRun(command, expected));
          baseline.push(await spawnBash(command, expected));
        }
      }
      const [hostCpu, agentCpu, spawnCpu] = pids.map((pid, i) => cpuPerCall(pid, before[i], threadTimes(pid), sizes.toolCalls));
      const c = summarize(core);
      const b = summarize(baseline);
      details[command] = { core: c, spawn: b, cpuPerCallMs: { host: hostCpu, agent: agentCpu, spawnHost: spawnCpu }, warmupCalls: sizes.toolWarmup };
      ctx.log(
        `  ${command}: terminal_run p50 ${c.p50.toFixed(2)} ms, spawn p50 ${b.p50.toFixed(2)} ms; CPU per call: host ${hostCpu.all.toFixed(2)} ms (main ${hostCpu.main.toFixed(2)}), client ${agentCpu.all.toFixed(2)} ms, spawning host ${spawnCpu.all.toFixed(2)} ms`,
      );
      rows.push(
        row({
          figure: '4',
          metric: `terminal_run \`${command}\` p50, ${c.n} calls (ms)`,
          value: c.p50,
          baseline: b.p50,
          target: '<= 1x spawn',
          pass: c.p50 <= b.p50,
        }),
        row({ figure: '4', metric: `terminal_run \`${command}\` p99 (ms)`, value: c.p99, baseline: b.p99 }),
      );
    }
    details.rss = { host: await host.request('rss'), spawnHost: await spawnHost.request('rss') };
    await agent.request('call', { name: 'terminal_close', args: { id } });
  } finally {
    await agent?.stop();
    await spawnHost?.stop();
    await host.stop();
  }
  return { rows, details };
}
