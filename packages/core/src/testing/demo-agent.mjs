// A scripted ACP agent for ptydeck's chat tests and demos, built on the
// SDK's agent app and run as a stdio child through agents.json:
//   {"agents":[{"name":"demo","command":"<node>","args":["<abs path>/demo-agent.mjs"]}]}
// The prompt text picks what it does (see README "Chat with an ACP agent"):
//   run <cmd>     asks permission, then runs <cmd> in a client terminal (terminal/*)
//   write <path> <text>   writes <text> to <path> through fs/write_text_file
//   edit <path> <text>    the same, after asking permission for the edit (as Gemini CLI and older Claude adapters do)
//   script <json>  an edit played as given, as a careless or hostile agent might: {"show":[{path,text}],
//                 "options":[{optionId,name,kind}], "during":[{path,text}], "after":[{path,text}], "write":[{path,text}]}:
//                 the card shows `show`, the question offers `options`, `during` replaces the card's diffs while it
//                 waits, `after` is added to the card once answered,
//                 then each of `write` is written; reports the option chosen and each write's outcome
//   own <cmd>     runs <cmd> itself and streams it as Claude's adapter does (_meta.terminal_*)
//   mcp <cmd>     runs <cmd> through ptydeck's MCP server given in session/new
//   wait          a turn that ends only when cancelled
//   die [<cmd>]   exits with code 7 (after starting <cmd> in a client terminal, when given)
//   bad           sends the client bad requests and reports the errors it got
//   anything else a thought, a plan and "You said: <text>"
// Its stdout carries ACP only; diagnostics go to stderr.
import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';

const { client: c } = acp.methods;
const sessions = new Map();
let clientCapabilities = {};
let nextId = 1;

/** Updates go out in the order they were made, each after the one before it. */
function updater(client, sessionId) {
  let chain = Promise.resolve();
  const send = (update) => (chain = chain.then(() => client.notify(c.session.update, { sessionId, update })));
  return {
    send,
    message: (text) => send({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } }),
    flushed: () => chain,
  };
}

const failure = (error) => ({ code: error?.code ?? null, message: String(error?.message ?? error) });

/**
 * The session's MCP client of the server given in session/new, connected on first use and kept, as real agents keep
 * theirs for the whole session (it ends with the agent).
 */
function mcpClientOf(session, server) {
  session.mcp ??= (async () => {
    const [{ Client }, { StdioClientTransport }] = await Promise.all([
      import('@modelcontextprotocol/sdk/client/index.js'),
      import('@modelcontextprotocol/sdk/client/stdio.js'),
    ]);
    const env = { ...process.env };
    for (const variable of server.env ?? []) env[variable.name] = variable.value;
    const transport = new StdioClientTransport({ command: server.command, args: server.args, env, stderr: 'inherit' });
    const mcp = new Client({ name: 'demo-agent', version: '1.0.0' });
    await mcp.connect(transport);
    return mcp;
  })();
  return session.mcp;
}

/** A promise that settles when the session's current turn is cancelled. */
function cancelled(session) {
  return new Promise((resolve) => session.cancels.push(resolve));
}

const scenarios = {
  async echo({ text, updates }) {
    await updates.send({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: `Thinking about: ${text}` } });
    const plan = (first, second) => ({
      sessionUpdate: 'plan',
      entries: [
        { content: 'Read the prompt', priority: 'high', status: first },
        { content: 'Answer it', priority: 'medium', status: second },
      ],
    });
    await updates.send(plan('in_progress', 'pending'));
    await updates.message('You said: ');
    await updates.message(text);
    await updates.send(plan('completed', 'completed'));
    return 'end_turn';
  },

  async run({ rest: command, client, sessionId, session, updates }) {
    const toolCallId = `run-${nextId++}`;
    await updates.send({ sessionUpdate: 'tool_call', toolCallId, title: `Run ${command}`, kind: 'execute', status: 'pending', rawInput: { command } });
    const turnCancelled = cancelled(session);
    const answer = await client.request(c.session.requestPermission, {
      sessionId,
      toolCall: { toolCallId, title: `Run ${command}`, kind: 'execute', rawInput: { command } },
      options: [
        { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
        { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
      ],
    });
    if (answer.outcome.outcome !== 'selected' || answer.outcome.optionId !== 'allow') {
      await updates.send({ sessionUpdate: 'tool_call_update', toolCallId, status: 'failed' });
      await updates.message('Not run.');
      return session.cancelled ? 'cancelled' : 'end_turn';
    }
    const { terminalId } = await client.request(c.terminal.create, { sessionId, command: 'bash', args: ['-c', command] });
    await updates.send({ sessionUpdate: 'tool_call_update', toolCallId, status: 'in_progress', content: [{ type: 'terminal', terminalId }] });
    const exit = await Promise.race([
      client.request(c.terminal.waitForExit, { sessionId, terminalId }),
      turnCancelled.then(async () => {
        await client.request(c.terminal.kill, { sessionId, terminalId });
        return null;
      }),
    ]);
    await client.request(c.terminal.release, { sessionId, terminalId });
    if (exit === null) {
      await updates.send({ sessionUpdate: 'tool_call_update', toolCallId, status: 'failed' });
      return 'cancelled';
    }
    await updates.send({ sessionUpdate: 'tool_call_update', toolCallId, status: 'completed' });
    await updates.message(`Exit code ${exit.exitCode ?? exit.signal}`);
    return 'end_turn';
  },

  edit(context) {
    return scenarios.write({ ...context, ask: true });
  },

  async script({ rest, client, sessionId, updates }) {
    const plan = JSON.parse(rest);
    const toolCallId = `script-${nextId++}`;
    const diffs = (list = []) => list.map(({ path, text }) => ({ type: 'diff', path, oldText: null, newText: text }));
    await updates.send({ sessionUpdate: 'tool_call', toolCallId, title: 'Scripted edit', kind: 'edit', status: 'pending', content: diffs(plan.show) });
    const asking = client.request(c.session.requestPermission, {
      sessionId,
      toolCall: { toolCallId, title: 'Scripted edit', kind: 'edit', content: diffs(plan.show) },
      options: plan.options,
    });
    // What the card shows while the question waits, if the plan changes it then.
    if (plan.during?.length) await updates.send({ sessionUpdate: 'tool_call_update', toolCallId, content: diffs(plan.during) });
    const answer = await asking;
    const selected = answer.outcome.outcome === 'selected' ? answer.outcome.optionId : null;
    if (plan.after?.length) await updates.send({ sessionUpdate: 'tool_call_update', toolCallId, content: diffs([...plan.show, ...plan.after]) });
    const writes = [];
    for (const { path, text } of plan.write ?? []) {
      writes.push(await client.request(c.fs.writeTextFile, { sessionId, path, content: text }).then(() => 'ok', (error) => failure(error).message));
    }
    await updates.message(JSON.stringify({ selected, writes }));
    return 'end_turn';
  },

  async write({ rest, client, sessionId, updates, ask = false }) {
    const space = rest.indexOf(' ');
    const path = space < 0 ? rest : rest.slice(0, space);
    const content = space < 0 ? '' : rest.slice(space + 1);
    const toolCallId = `write-${nextId++}`;
    const oldText = await client.request(c.fs.readTextFile, { sessionId, path }).then((r) => r.content, () => null);
    await updates.send({
      sessionUpdate: 'tool_call',
      toolCallId,
      title: `Write ${path}`,
      kind: 'edit',
      status: 'pending',
      content: [{ type: 'diff', path, oldText, newText: content }],
      locations: [{ path }],
    });
    if (ask) {
      const answer = await client.request(c.session.requestPermission, {
        sessionId,
        toolCall: { toolCallId, title: `Write ${path}`, kind: 'edit', content: [{ type: 'diff', path, oldText, newText: content }] },
        options: [
          { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
          { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
        ],
      });
      if (answer.outcome.outcome !== 'selected' || answer.outcome.optionId !== 'allow') {
        await updates.send({ sessionUpdate: 'tool_call_update', toolCallId, status: 'failed' });
        await updates.message('Not written.');
        return 'end_turn';
      }
    }
    try {
      await client.request(c.fs.writeTextFile, { sessionId, path, content });
    } catch (error) {
      await updates.send({ sessionUpdate: 'tool_call_update', toolCallId, status: 'failed' });
      await updates.message(failure(error).message);
      return 'end_turn';
    }
    await updates.send({ sessionUpdate: 'tool_call_update', toolCallId, status: 'completed' });
    await updates.message(`Wrote ${path}`);
    return 'end_turn';
  },

  async wait({ session }) {
    await cancelled(session);
    return 'cancelled';
  },

  /** Runs the command itself and streams it the way Claude's adapter does for a client that advertises _meta.terminal_output. */
  async own({ rest: command, session, updates }) {
    const toolCallId = `own-${nextId++}`;
    const streams = clientCapabilities?._meta?.terminal_output === true;
    await updates.send({
      sessionUpdate: 'tool_call',
      toolCallId,
      title: command,
      kind: 'execute',
      status: 'in_progress',
      rawInput: { command },
      ...(streams ? { content: [{ type: 'terminal', terminalId: toolCallId }], _meta: { terminal_info: { terminal_id: toolCallId, cwd: session.cwd } } } : {}),
    });
    const child = spawn('bash', ['-c', command], { cwd: session.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const onData = (chunk) => {
      const data = chunk.toString('utf8');
      output += data;
      if (streams) void updates.send({ sessionUpdate: 'tool_call_update', toolCallId, _meta: { terminal_output: { terminal_id: toolCallId, data } } });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const [exitCode, signal] = await new Promise((resolve) => child.once('close', (code, sig) => resolve([code, sig])));
    await updates.send({
      sessionUpdate: 'tool_call_update',
      toolCallId,
      status: exitCode === 0 ? 'completed' : 'failed',
      ...(streams
        ? { _meta: { terminal_exit: { terminal_id: toolCallId, exit_code: exitCode, signal } } }
        : { content: [{ type: 'content', content: { type: 'text', text: output } }] }),
    });
    await updates.message(`Exit code ${exitCode ?? signal}`);
    return 'end_turn';
  },

  /** Runs the command through the terminal tool of the MCP server ptydeck put in session/new. */
  async mcp({ rest: command, session, updates }) {
    const server = session.mcpServers.find((s) => 'command' in s && !('type' in s && s.type !== 'stdio'));
    if (!server) {
      await updates.message('No MCP server was given to this session.');
      return 'end_turn';
    }
    let mcp;
    try {
      mcp = await mcpClientOf(session, server);
      const result = await mcp.callTool({ name: 'terminal_run', arguments: { command } });
      const structured = result.structuredContent ?? {};
      if (result.isError) {
        await updates.message(`MCP error: ${result.content?.map((item) => item.text ?? '').join('') ?? ''}`);
      } else {
        await updates.message(`MCP terminal ${structured.id}: exit code ${structured.exit_code}`);
      }
    } catch (error) {
      await updates.message(`MCP failed: ${failure(error).message}`);
      // A connection that failed is not kept for the next command.
      session.mcp = undefined;
      await mcp?.close().catch(() => {});
    }
    return 'end_turn';
  },

  async die({ rest: command, client, sessionId, updates }) {
    if (command) {
      // Left running on purpose: the client must end what a dead agent started.
      const { terminalId } = await client.request(c.terminal.create, { sessionId, command: 'bash', args: ['-c', command] });
      await updates.send({ sessionUpdate: 'tool_call', toolCallId: `die-${nextId++}`, title: command, kind: 'execute', status: 'in_progress', content: [{ type: 'terminal', terminalId }] });
      await updates.flushed();
    }
    process.stderr.write('demo agent: dying on request\n');
    process.exit(7);
  },

  /** Requests a client must refuse; the errors it answered, as one JSON message. */
  async bad({ client, sessionId, updates }) {
    const attempt = (method, params) => client.request(method, params).then((result) => ({ ok: result }), failure);
    const seen = {
      unknownSession: await attempt(c.fs.readTextFile, { sessionId: 'not-a-session', path: '/etc/hostname' }),
      relativePath: await attempt(c.fs.readTextFile, { sessionId, path: 'relative.txt' }),
      unknownTerminal: await attempt(c.terminal.output, { sessionId, terminalId: 'no-such-terminal' }),
      relativeCwd: await attempt(c.terminal.create, { sessionId, command: 'true', cwd: 'relative/dir' }),
      missingCommand: await attempt(c.terminal.create, { sessionId }),
      unknownMethod: await attempt('ptydeck/no_such_method', {}),
    };
    await updates.message(JSON.stringify(seen));
    return 'end_turn';
  },
};

function scenarioOf(text) {
  const [word] = text.split(/\s/, 1);
  const rest = text.slice(word.length).trim();
  if (['run', 'write', 'edit', 'script', 'own', 'mcp', 'die'].includes(word) && rest) return { name: word, rest };
  if (['wait', 'die', 'bad'].includes(text.trim())) return { name: text.trim(), rest: '' };
  return { name: 'echo', rest: text };
}

const app = acp
  .agent({ name: 'ptydeck-demo-agent' })
  .onRequest(acp.methods.agent.initialize, ({ params }) => {
    clientCapabilities = params.clientCapabilities ?? {};
    return { protocolVersion: acp.PROTOCOL_VERSION, agentCapabilities: {}, agentInfo: { name: 'ptydeck-demo-agent', version: '1.0.0' } };
  })
  .onRequest(acp.methods.agent.session.new, ({ params }) => {
    const sessionId = `demo-${process.pid}-${nextId++}`;
    sessions.set(sessionId, { cwd: params.cwd, mcpServers: params.mcpServers ?? [], cancels: [], cancelled: false, busy: false });
    return { sessionId };
  })
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    const session = sessions.get(params.sessionId);
    if (!session) throw acp.RequestError.sessionNotFound(params.sessionId);
    if (session.busy) throw acp.RequestError.invalidRequest(undefined, 'a prompt turn is already running in this session');
    session.busy = true;
    session.cancelled = false;
    session.cancels = [];
    try {
      const text = params.prompt.map((block) => (block.type === 'text' ? block.text : '')).join('');
      const { name, rest } = scenarioOf(text);
      const updates = updater(client, params.sessionId);
      const stopReason = await scenarios[name]({ text, rest, client, sessionId: params.sessionId, session, updates });
      await updates.flushed();
      return { stopReason: session.cancelled ? 'cancelled' : stopReason };
    } finally {
      session.busy = false;
    }
  })
  .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
    const session = sessions.get(params.sessionId);
    if (!session) return;
    session.cancelled = true;
    for (const resolve of session.cancels.splice(0)) resolve();
  });

app.connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
process.stderr.write('demo agent ready\n');
