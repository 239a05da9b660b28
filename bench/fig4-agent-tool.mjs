// Figure 4: agent tool cost. terminal_run of `true` and of `echo hi` in one
// persistent shell, called through MCP with the official SDK client over
// Streamable HTTP; against spawning `bash -c <command>` per call with
// child_process, which is what one-shot agent tools do. Calls alternate
// between the two so both see the same load.
//
// The spawn is timed in a second host of its own (core-host.mjs, started as
// the core's is, with no session, its spawnBash op), not in the bench
// process: fork's cost follows the size of the process that forks, and the
// bench process's size depends on the figures that ran in it before (3 ms
// in a fresh one, 18 to 22 ms after the other figures). A host-sized process
// is what the comparison is about: the same process spawning per command
// instead of keeping one shell.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { now, row, summarize, withDeadline } from './lib/harness.mjs';
import { startCoreHost } from './lib/hosts.mjs';

const WARMUP_CALLS = 5;

export async function run(ctx) {
  const { workspace, sizes } = ctx;
  const host = await startCoreHost(workspace);
  let spawnHost;
  const client = new Client({ name: 'ptydeck-bench', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', host.ready.url), {
    requestInit: { headers: { Authorization: `Bearer ${host.ready.agentToken}` } },
  });
  const rows = [];
  const details = {};
  try {
    spawnHost = await startCoreHost(workspace);
    const spawnBash = (command, expected) =>
      spawnHost.request('spawnBash', { bash: workspace.bash, command, env: workspace.env, cwd: workspace.home, expected });
    await withDeadline(client.connect(transport), 15_000, 'MCP connect');
    const created = await callTool(client, 'terminal_create', { cwd: workspace.home });
    const id = created.id;
    for (const command of ['true', 'echo hi']) {
      const expected = command === 'true' ? '' : 'hi';
      for (let i = 0; i < WARMUP_CALLS; i++) {
        await terminalRun(client, id, command, expected);
        await spawnBash(command, expected);
      }
      const core = [];
      const baseline = [];
      for (let i = 0; i < sizes.toolCalls; i++) {
        if (i % 2 === 0) {
          baseline.push(await spawnBash(command, expected));
          core.push(await terminalRun(client, id, command, expected));
        } else {
          core.push(await terminalRun(client, id, command, expected));
          baseline.push(await spawnBash(command, expected));
        }
      }
      const c = summarize(core);
      const b = summarize(baseline);
      details[command] = { core: c, spawn: b };
      ctx.log(`  ${command}: terminal_run p50 ${c.p50.toFixed(2)} ms, spawn p50 ${b.p50.toFixed(2)} ms`);
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
    await callTool(client, 'terminal_close', { id });
  } finally {
    await spawnHost?.stop();
    await transport.terminateSession().catch(() => {});
    await client.close().catch(() => {});
    await host.stop();
  }
  return { rows, details };
}

async function callTool(client, name, args) {
  const result = await withDeadline(client.callTool({ name, arguments: args }), 60_000, name);
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent;
}

async function terminalRun(client, id, command, expected) {
  const started = now();
  const result = await callTool(client, 'terminal_run', { id, command });
  const ms = now() - started;
  if (result.outcome !== 'completed' || result.exit_code !== 0 || result.output.trim() !== expected) {
    throw new Error(`terminal_run ${command}: unexpected result ${JSON.stringify(result)}`);
  }
  return ms;
}
