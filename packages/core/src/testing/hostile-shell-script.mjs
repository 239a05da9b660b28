// A hostile program an agent runs through terminal_run, in its own shell, as the
// developer's user. It reads everything such a process can (server.json, its
// environment and argv, /proc of every ancestor up to the server), tries every
// secret-looking string it found on /panel and /ticket, names other processes as
// the sender of /ticket, /snapshot and the panel socket, runs `ptydeck url` and `ptydeck attach`
// plain, with a scrubbed environment and after setsid, and uses the agent token
// over MCP on the sessions it was told about. It writes what it got as JSON.
//
// argv: result file, ws module path, MCP SDK client path, SDK transport path,
// the ptydeck launcher, then session ids that are not its own.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [resultFile, wsPath, clientPath, transportPath, ptydeckBin, ...foreignIds] = process.argv.slice(2);
const result = { read: {}, ancestors: [], candidates: [], panel: [], ticket: [], claims: [], url: [], mcp: {} };

const read = (path) => {
  try {
    return readFileSync(path, 'latin1');
  } catch (error) {
    return `unreadable: ${error.code}`;
  }
};

// 1. Everything readable.
const env = process.env;
const stateDir = env.PTYDECK_STATE_DIR || (env.XDG_STATE_HOME ? join(env.XDG_STATE_HOME, 'ptydeck') : join(env.HOME || homedir(), '.local', 'state', 'ptydeck'));
const texts = [JSON.stringify(env), process.argv.join(' ')];
for (const name of readdirSync(stateDir)) texts.push(read(join(stateDir, name)));
const record = JSON.parse(read(join(stateDir, 'server.json')));
result.read.serverJson = record;
result.read.sessionId = env.PTYDECK_SESSION_ID;
for (let pid = process.pid; pid > 1; ) {
  result.ancestors.push(pid);
  for (const file of ['environ', 'cmdline', 'stat', 'status']) texts.push(read(`/proc/${pid}/${file}`));
  const stat = read(`/proc/${pid}/stat`);
  pid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
}
result.candidates = [...new Set(texts.join('\n').match(/[A-Za-z0-9_-]{43}/g) ?? [])];

// 2. Every candidate on the panel socket, from the server's own Origin.
const WebSocket = createRequire(import.meta.url)(wsPath);
const host = new URL(record.url).host;
function tryPanel(token) {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://${host}/panel`, ['ptydeck.v1', `ptydeck.token.${token}`], { headers: { Origin: record.url } });
    ws.once('message', (data) => {
      const snapshot = JSON.parse(String(data));
      // In: type into every session the snapshot lists, the developer's own first.
      for (const session of snapshot.sessions ?? []) ws.send(JSON.stringify({ type: 'input', id: session.id, data: 'echo HOSTILE-INPUT\r' }));
      setTimeout(() => ws.close(), 200);
      resolve({ opened: true, sessions: (snapshot.sessions ?? []).map((s) => s.id) });
    });
    ws.once('unexpected-response', (_req, res) => resolve({ opened: false, status: res.statusCode }));
    ws.once('error', (error) => resolve({ opened: false, error: error.message }));
  });
}
for (const token of result.candidates) result.panel.push({ token, ...(await tryPanel(token)) });

// 3. /ticket with nothing, and with every candidate as a bearer.
for (const token of [undefined, ...result.candidates]) {
  const response = await fetch(new URL('/ticket', record.url), { method: 'POST', headers: token ? { Authorization: `Bearer ${token}` } : {} });
  result.ticket.push({ token, status: response.status, body: await response.text() });
}

// 3b. /ticket and /snapshot naming another process as the sender (the asker pid header): each process above
// it (the host's among them, and the developer's outside it), the lock holder, init, itself, and no pid at all.
const claims = [...new Set([...result.ancestors, record.pid, 1])].map(String).concat(['not-a-pid', '0', `${process.pid}, 1`]);
for (const path of ['/ticket', '/snapshot']) {
  for (const claim of claims) {
    const response = await fetch(new URL(path, record.url), { method: 'POST', headers: { 'ptydeck-asker-pid': claim } });
    result.claims.push({ path, claim, status: response.status, body: await response.text() });
  }
}

// 3c. The panel socket opened by pid (as `ptydeck attach` opens it), with no token and no Origin: claiming each of the
// same processes, and itself (judged inside).
function tryPanelByPid(claim) {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://${host}/panel`, ['ptydeck.v1'], { headers: { 'ptydeck-asker-pid': claim } });
    ws.once('message', (data) => {
      for (const session of JSON.parse(String(data)).sessions ?? []) ws.send(JSON.stringify({ type: 'input', id: session.id, data: 'echo HOSTILE-INPUT\r' }));
      setTimeout(() => ws.close(), 200);
      resolve({ path: '/panel', claim, status: 101, body: 'opened' });
    });
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ path: '/panel', claim, status: res.statusCode, body }));
    });
    ws.once('error', (error) => resolve({ path: '/panel', claim, status: 0, body: error.message }));
  });
}
for (const claim of [...claims, String(process.pid)]) result.claims.push(await tryPanelByPid(claim));

// 4. `ptydeck url`: as is, with a scrubbed environment, in a new POSIX session with one.
const scrubbed = ['env', '-i', `PATH=${env.PATH}`, `HOME=${env.HOME}`, `PTYDECK_STATE_DIR=${stateDir}`];
for (const [name, argv] of [
  ['plain', [process.execPath, ptydeckBin, 'url']],
  ['scrubbed environment', [...scrubbed, process.execPath, ptydeckBin, 'url']],
  ['setsid and scrubbed environment', ['setsid', '-w', ...scrubbed, process.execPath, ptydeckBin, 'url']],
  // `ptydeck attach` to the developer's tab, opening the panel socket by its pid.
  ['attach, scrubbed environment', [...scrubbed, process.execPath, ptydeckBin, 'attach', '--write', foreignIds[0]]],
]) {
  // Not spawnSync: a blocked loop keeps fetch's idle keep-alive sockets (from step 3) past the server's
  // 5 s deadline, and step 5's first request then goes out on one the server has closed ("other side closed").
  const run = await new Promise((resolve) => {
    execFile(argv[0], argv.slice(1), { encoding: 'utf8', timeout: 20_000 }, (error, stdout, stderr) =>
      resolve({ status: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr }),
    );
  });
  result.url.push({ name, ...run });
}

// 5. The agent token over MCP: a connection of its own sees only its own sessions.
const { Client } = await import(pathToFileURL(clientPath).href);
const { StreamableHTTPClientTransport } = await import(pathToFileURL(transportPath).href);
const client = new Client({ name: 'hostile', version: '1' });
await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', record.url), { requestInit: { headers: { Authorization: `Bearer ${record.token}` } } }));
const listed = await client.callTool({ name: 'terminal_list', arguments: {} });
result.mcp.listed = listed.structuredContent;
result.mcp.reads = [];
for (const id of foreignIds) {
  const got = await client.callTool({ name: 'terminal_read', arguments: { id } });
  const send = await client.callTool({ name: 'terminal_send', arguments: { id, text: 'echo HOSTILE-INPUT\r' } });
  result.mcp.reads.push({ id, read: { isError: got.isError === true, content: got.content }, send: { isError: send.isError === true } });
}
await client.close();

writeFileSync(resultFile, JSON.stringify(result, null, 2));
process.stdout.write('hostile script done\n');
