// A scripted ACP agent for tests: it speaks ACP over stdio with the SDK's
// agent app and, on each prompt, runs the scenario the prompt names (a JSON
// object), then reports what it saw as one agent_message_chunk update.
import { readdirSync, readlinkSync } from 'node:fs';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';

const { client: c } = acp.methods;
let clientCapabilities = null;

/** A rejected request as plain data the test can compare. */
const failure = (error) => ({ code: error?.code ?? null, message: String(error?.message ?? error) });

const scenarios = {
  /** Every client method once, in the order a real agent might use them. */
  async run(client, sessionId, { file, writes }) {
    const seen = { clientCapabilities };
    const { terminalId } = await client.request(c.terminal.create, { sessionId, command: "bash -c 'echo hi; exit 3'" });
    seen.terminalId = terminalId;
    seen.exit = await client.request(c.terminal.waitForExit, { sessionId, terminalId });
    seen.output = await client.request(c.terminal.output, { sessionId, terminalId });
    await client.request(c.terminal.release, { sessionId, terminalId });
    seen.afterRelease = await client.request(c.terminal.output, { sessionId, terminalId }).then(() => 'still there', failure);
    seen.read = await client.request(c.fs.readTextFile, { sessionId, path: file, line: 2, limit: 1 });
    seen.writes = [];
    for (const write of writes) {
      seen.writes.push(await client.request(c.fs.writeTextFile, { sessionId, path: write.path, content: write.content }).then(() => 'ok', failure));
    }
    seen.permission = await client.request(c.session.requestPermission, {
      sessionId,
      toolCall: { toolCallId: 'call-1', title: 'rm -rf build' },
      options: [
        { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
        { optionId: 'deny', name: 'Deny', kind: 'reject_once' },
      ],
    });
    return seen;
  },

  /** A permission request left open until the client answers it. */
  async ask(client, sessionId) {
    return {
      permission: await client.request(c.session.requestPermission, {
        sessionId,
        toolCall: { toolCallId: 'call-2', title: 'deploy' },
        options: [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }],
      }),
    };
  },

  /** What its descriptors lead to (readlink of each in /proc/self/fd): a host's terminal master must not be among them. */
  async descriptors() {
    const dir = '/proc/self/fd';
    return { targets: readdirSync(dir).map((fd) => { try { return readlinkSync(`${dir}/${fd}`); } catch { return 'gone'; } }) };
  },

  /** A long-running terminal, then a turn that never ends: for killing the agent mid-turn. */
  async hold(client, sessionId) {
    const { terminalId } = await client.request(c.terminal.create, { sessionId, command: 'sleep', args: ['600'] });
    await report(client, sessionId, { terminalId });
    return new Promise(() => {});
  },
};

function report(client, sessionId, seen) {
  return client.notify(c.session.update, {
    sessionId,
    update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: JSON.stringify(seen) } },
  });
}

const app = acp
  .agent({ name: 'fake-agent' })
  .onRequest(acp.methods.agent.initialize, ({ params }) => {
    clientCapabilities = params.clientCapabilities ?? null;
    return { protocolVersion: acp.PROTOCOL_VERSION, agentCapabilities: {} };
  })
  .onRequest(acp.methods.agent.session.new, () => ({ sessionId: `fake-${process.pid}` }))
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    const block = params.prompt[0];
    const request = JSON.parse(block?.type === 'text' ? block.text : '{}');
    const scenario = scenarios[request.scenario];
    if (!scenario) throw acp.RequestError.invalidParams(request, `unknown scenario '${request.scenario}'`);
    await report(client, params.sessionId, await scenario(client, params.sessionId, request));
    return { stopReason: 'end_turn' };
  })
  .onNotification(acp.methods.agent.session.cancel, () => {});

app.connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
process.stderr.write('fake agent ready\n');
