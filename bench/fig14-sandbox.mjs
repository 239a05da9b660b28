// Figure 14: what a bubblewrap sandbox costs an agent's shell (issue 35). Two
// agents on one core over MCP (the official SDK client, Streamable HTTP), one
// whose client names the `workspace` profile and one `off`, as `ptydeck mcp
// --sandbox` does with its header. Measured, alternating between the two so
// both see the same load: terminal_create until the shell's first prompt (the
// call returns once shell integration reports it), and terminal_run `true` in
// one persistent shell of each. Baseline: the unsandboxed shell.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { sandboxAvailability } from '../packages/core/dist/sandbox/availability.js';
import { now, row, summarize, withDeadline } from './lib/harness.mjs';
import { startCoreHost } from './lib/hosts.mjs';

const CREATE_TARGET = 1.5;
const RUN_TARGET = 1.1;
const WARMUP = 3;
/** The header `ptydeck mcp --sandbox PROFILE` sends (server/bridge-header.ts). */
const SANDBOX_HEADER = 'x-ptydeck-sandbox';

export async function run(ctx) {
  const { workspace, sizes } = ctx;
  const available = sandboxAvailability('workspace', workspace.env.PATH);
  if (!available.ok) {
    ctx.log(`  skipped: ${available.reason}`);
    return { rows: [row({ figure: '14', metric: `sandboxed shells: not measured (${available.reason})` })], details: { skipped: available.reason } };
  }
  const project = path.join(workspace.home, 'project');
  mkdirSync(project, { recursive: true });
  const host = await startCoreHost(workspace, { maxSessions: 16 });
  const agents = [];
  try {
    const sandboxed = await connect(host, 'workspace', agents);
    const plain = await connect(host, 'off', agents);
    const creates = Math.max(5, Math.round(sizes.toolCalls / 10));
    const createMs = { sandboxed: [], plain: [] };
    for (let i = 0; i < WARMUP + creates; i++) {
      // Alternate which goes first, so neither always follows the other's close.
      const order = i % 2 === 0 ? [['sandboxed', sandboxed], ['plain', plain]] : [['plain', plain], ['sandboxed', sandboxed]];
      for (const [name, client] of order) {
        const ms = await timedCreate(client, project, name === 'sandboxed' ? 'workspace' : 'off');
        if (i >= WARMUP) createMs[name].push(ms);
      }
    }

    const shells = {
      sandboxed: (await callTool(sandboxed, 'terminal_create', { cwd: project })).id,
      plain: (await callTool(plain, 'terminal_create', { cwd: project })).id,
    };
    const runMs = { sandboxed: [], plain: [] };
    for (let i = 0; i < WARMUP + sizes.toolCalls; i++) {
      const order = i % 2 === 0 ? ['sandboxed', 'plain'] : ['plain', 'sandboxed'];
      for (const name of order) {
        const ms = await timedTrue(name === 'sandboxed' ? sandboxed : plain, shells[name]);
        if (i >= WARMUP) runMs[name].push(ms);
      }
    }

    const create = { sandboxed: summarize(createMs.sandboxed), plain: summarize(createMs.plain) };
    const runs = { sandboxed: summarize(runMs.sandboxed), plain: summarize(runMs.plain) };
    ctx.log(`  create to first prompt p50: sandboxed ${create.sandboxed.p50.toFixed(1)} ms, unsandboxed ${create.plain.p50.toFixed(1)} ms (${create.plain.n} each)`);
    ctx.log(`  terminal_run true p50: sandboxed ${runs.sandboxed.p50.toFixed(2)} ms, unsandboxed ${runs.plain.p50.toFixed(2)} ms (${runs.plain.n} each)`);
    const createRatio = create.sandboxed.p50 / create.plain.p50;
    const runRatio = runs.sandboxed.p50 / runs.plain.p50;
    return {
      rows: [
        row({
          figure: '14',
          metric: `sandboxed shell, terminal_create to first prompt p50, ${create.plain.n} each (ms)`,
          value: create.sandboxed.p50,
          baseline: create.plain.p50,
          target: `<= ${CREATE_TARGET}x unsandboxed`,
          pass: createRatio <= CREATE_TARGET,
          note: 'profile workspace (bubblewrap) against off, alternating',
        }),
        row({ figure: '14', metric: '  terminal_create to first prompt p90 (ms)', value: create.sandboxed.p90, baseline: create.plain.p90 }),
        row({
          figure: '14',
          metric: `sandboxed shell, terminal_run \`true\` p50, ${runs.plain.n} calls each (ms)`,
          value: runs.sandboxed.p50,
          baseline: runs.plain.p50,
          target: `<= ${RUN_TARGET}x unsandboxed`,
          pass: runRatio <= RUN_TARGET,
        }),
        row({ figure: '14', metric: '  terminal_run `true` p99 (ms)', value: runs.sandboxed.p99, baseline: runs.plain.p99 }),
      ],
      details: { create, runs },
    };
  } finally {
    for (const { client, transport } of agents) {
      await transport.terminateSession().catch(() => {});
      await client.close().catch(() => {});
    }
    await host.stop();
  }
}

async function connect(host, profile, agents) {
  const client = new Client({ name: `ptydeck-bench-${profile}`, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', host.ready.url), {
    requestInit: { headers: { Authorization: `Bearer ${host.ready.agentToken}`, [SANDBOX_HEADER]: profile } },
  });
  agents.push({ client, transport });
  await withDeadline(client.connect(transport), 15_000, 'MCP connect');
  return client;
}

async function callTool(client, name, args) {
  const result = await withDeadline(client.callTool({ name, arguments: args }), 60_000, name);
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent;
}

/** terminal_create of an interactive bash: the call returns at its first prompt. Closed after, outside the time. */
async function timedCreate(client, cwd, profile) {
  const started = now();
  const created = await callTool(client, 'terminal_create', { cwd });
  const ms = now() - started;
  if (created.sandbox?.profile !== profile || created.state !== 'idle_at_prompt') throw new Error(`terminal_create: expected a ${profile} shell at its prompt, got ${JSON.stringify({ sandbox: created.sandbox, state: created.state })}`);
  await callTool(client, 'terminal_close', { id: created.id, force: true });
  return ms;
}

async function timedTrue(client, id) {
  const started = now();
  const result = await callTool(client, 'terminal_run', { id, command: 'true' });
  const ms = now() - started;
  if (result.outcome !== 'completed' || result.exit_code !== 0) throw new Error(`terminal_run true: unexpected result ${JSON.stringify(result)}`);
  return ms;
}
