// Figure 4's agent: the official MCP SDK client in a fresh process of its
// own, started for the figure, which calls terminal_run over Streamable HTTP
// and times each call there. Called from the bench process, the calls paid
// for that process's state after the figures before it (its garbage
// collections, a heap grown by every figure of the runs before in a
// --repeat run), which the spawn baseline, timed in a host of its own, did
// not (bench/README.md, "Figure 4's baseline").
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { now, withDeadline } from './harness.mjs';
import { send, serveOps } from './host-rpc.mjs';

let client;
let transport;

async function callTool(name, args) {
  const result = await withDeadline(client.callTool({ name, arguments: args }), 60_000, name);
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent;
}

const ops = {
  connect: async ({ url, token }) => {
    client = new Client({ name: 'ptydeck-bench', version: '1.0.0' });
    transport = new StreamableHTTPClientTransport(new URL('/mcp', url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
    await withDeadline(client.connect(transport), 15_000, 'MCP connect');
    return true;
  },
  call: ({ name, args }) => callTool(name, args),
  /** One terminal_run, timed here from the call to its result; its outcome, exit code and output checked. */
  run: async ({ id, command, expected }) => {
    const started = now();
    const result = await callTool('terminal_run', { id, command });
    const ms = now() - started;
    if (result.outcome !== 'completed' || result.exit_code !== 0 || result.output.trim() !== expected) {
      throw new Error(`terminal_run ${command}: unexpected result ${JSON.stringify(result)}`);
    }
    return ms;
  },
  stop: async () => {
    await transport?.terminateSession().catch(() => {});
    await client?.close().catch(() => {});
    setImmediate(() => process.exit(0));
    return true;
  },
};

serveOps(ops);
process.on('disconnect', () => process.exit(0));
send({ event: 'ready', pid: process.pid });
