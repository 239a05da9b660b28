// Figure 7: cold start. `ptydeck serve` (the real CLI, a fresh process) until
// an MCP client has completed initialize against it: spawn, wait for the
// "running at" line, read the token from the discovery file, MCP initialize.
// Baseline: a bare Node HTTP server started the same way and answering one
// POST, i.e. what any Node server pays to start on this machine.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { deferred, killChild, median, now, onCleanup, REPO_DIR, row, summarize, withDeadline } from './lib/harness.mjs';

const TARGET_MS = 500;
const PTYDECK_BIN = path.join(REPO_DIR, 'packages', 'core', 'bin', 'ptydeck.js');
const BASELINE_SERVER = `
const http = require('node:http');
const server = http.createServer((req, res) => { req.resume(); req.on('end', () => res.end('{"ok":true}')); });
server.listen(0, '127.0.0.1', () => console.log('listening at http://127.0.0.1:' + server.address().port));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;

export async function run(ctx) {
  const { workspace, sizes } = ctx;
  const serve = [];
  const bare = [];
  // One untimed start of each warms the page cache for node, the modules and the SDK.
  await startPtydeck(workspace, 'warm');
  await startBaseline(workspace);
  for (let i = 0; i < sizes.coldStarts; i++) {
    serve.push(await startPtydeck(workspace, String(i)));
    bare.push(await startBaseline(workspace));
  }
  const total = summarize(serve.map((s) => s.ms));
  const base = summarize(bare.map((s) => s.ms));
  const listening = median(serve.map((s) => s.listeningMs));
  ctx.log(`  ptydeck serve p50 ${total.p50.toFixed(0)} ms (listening at ${listening.toFixed(0)} ms), bare node ${base.p50.toFixed(0)} ms`);
  return {
    rows: [
      row({
        figure: '7',
        metric: `cold start, \`ptydeck serve\` to MCP initialized, p50 of ${total.n} (ms)`,
        value: total.p50,
        baseline: base.p50,
        target: `< ${TARGET_MS} ms`,
        pass: total.p50 < TARGET_MS,
        note: `listening after ${listening.toFixed(0)} ms, max ${total.max.toFixed(0)} ms`,
      }),
    ],
    details: { serve: total, listeningP50: listening, baseline: base, runs: serve },
  };
}

function launch(args, env, label) {
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const unregister = onCleanup(() => killChild(child, 'SIGKILL'));
  const line = deferred();
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk) => {
    out += chunk;
    const match = /(?:running|listening) at (http:\/\/\S+)/.exec(out);
    if (match) line.resolve(match[1]);
  });
  child.stderr.on('data', (chunk) => (err += chunk));
  child.once('exit', (code, signal) => line.reject(new Error(`${label} exited before it was ready (${signal ?? code}): ${err.trim()}`)));
  return {
    child,
    url: withDeadline(line.promise, 30_000, `${label} start`),
    stop: async () => {
      await killChild(child, 'SIGTERM', 10_000);
      unregister();
    },
  };
}

async function startPtydeck(workspace, name) {
  // A state dir per start: serve reports a stale discovery file otherwise, which is another code path.
  const stateDir = path.join(workspace.state, `cold-${name}`);
  mkdirSync(stateDir, { recursive: true });
  const started = now();
  const proc = launch([PTYDECK_BIN, 'serve', '--port', '0'], { ...workspace.env, PTYDECK_STATE_DIR: stateDir }, 'ptydeck serve');
  try {
    const url = await proc.url;
    const listeningMs = now() - started;
    const { token } = JSON.parse(readFileSync(path.join(stateDir, 'server.json'), 'utf8'));
    const client = new Client({ name: 'ptydeck-bench', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL('/mcp', url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
    await withDeadline(client.connect(transport), 30_000, 'MCP initialize');
    const ms = now() - started;
    await transport.terminateSession().catch(() => {});
    await client.close();
    return { ms, listeningMs };
  } finally {
    await proc.stop();
  }
}

async function startBaseline(workspace) {
  const started = now();
  const proc = launch(['-e', BASELINE_SERVER], workspace.env, 'bare node server');
  try {
    const url = await proc.url;
    const response = await fetch(url, { method: 'POST', body: '{}' });
    await response.text();
    return { ms: now() - started };
  } finally {
    await proc.stop();
  }
}
