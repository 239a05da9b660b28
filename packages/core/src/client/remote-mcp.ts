// `ptydeck mcp --remote NAME`: the agent's MCP frames carried over ssh to the remote's own `ptydeck mcp`, surviving a dropped link.
import type { ChildProcess } from 'node:child_process';
import { isJSONRPCErrorResponse, isJSONRPCNotification, isJSONRPCRequest, isJSONRPCResultResponse, type JSONRPCMessage, type JSONRPCRequest, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { resolveConfigDir } from '../common/config-dir.js';
import { findRemote, type RemoteEntry } from '../remote/remotes-config.js';
import { RemoteVerdict, spawnRemote } from '../remote/ssh-launch.js';
import { newAgentKey } from '../common/agent-identity.js';
import { bounded } from '../common/bounded.js';
import { exitCodeFor, type StopReason } from '../common/signals.js';
import { StdioJsonRpcTransport } from '../common/stdio-transport.js';

const BACKOFF_FIRST_MS = 250;
const BACKOFF_MAX_MS = 5000;
const SHUTDOWN_MS = 4000;

type Asked = Pick<JSONRPCRequest, 'id' | 'method'>;

/**
 * One ssh connection running the remote's `ptydeck mcp --agent-key-stdin`,
 * which bridges to the remote's host as a local `ptydeck mcp` does: tool
 * results (exit codes, waits, ports) are the remote ptydeck's own.
 */
class RemoteMcpLink {
  readonly transport: StdioJsonRpcTransport;
  /** Settles once ssh has exited: why ptydeck did not run there (the one line), or undefined. */
  readonly closed: Promise<{ code: number | null; failure: string | undefined; lastError: string | undefined }>;
  private readonly child: ChildProcess;

  constructor(remote: RemoteEntry, agentKey: string, log: (line: string) => void) {
    let lastError: string | undefined;
    const verdict = new RemoteVerdict(remote, (line) => {
      lastError = line;
      log(`ptydeck mcp: ${remote.name}: ${line}`);
    });
    // BatchMode: an agent's stdio has nobody to type a password or accept a host key; ssh fails at once instead.
    this.child = spawnRemote(remote, ['mcp', '--agent-key-stdin'], { batch: true });
    this.child.stderr!.on('data', (chunk: Buffer) => verdict.write(chunk));
    // A write after ssh died is reported through 'close', not as an uncaught EPIPE.
    this.child.stdin!.on('error', () => {});
    this.child.stdin!.write(`${agentKey}\n`);
    this.transport = new StdioJsonRpcTransport(this.child.stdout!, this.child.stdin!);
    this.closed = new Promise((resolve) => {
      this.child.once('error', (error) => {
        lastError = `cannot run ssh: ${error.message}`;
        log(`ptydeck mcp: ${lastError}`);
      });
      this.child.once('close', (code) => {
        verdict.end();
        resolve({ code, failure: verdict.failure(code), lastError });
      });
    });
  }

  async start(): Promise<void> {
    await this.transport.start();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.transport.send(message);
  }

  /** Ends the remote `ptydeck mcp` by closing its stdin (it ends its MCP session; the remote's terminals stay), then ssh. */
  async close(): Promise<void> {
    this.child.stdin!.end();
    await bounded(this.closed, 2000);
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGTERM');
  }
}

/**
 * `ptydeck mcp --remote NAME`. While the link is up, frames pass through.
 * When ssh exits (killed, the network gone, the laptop asleep), the calls in
 * flight and every call until it is back get an error result at once saying
 * the remote's terminals keep running; meanwhile it reconnects with backoff,
 * opening a new MCP session there with the agent's own initialize under the
 * same agent key, so the agent owns its terminals there again.
 */
export async function runRemoteMcp(name: string, log: (line: string) => void, stopped: Promise<StopReason>): Promise<number> {
  const remote = findRemote(resolveConfigDir(), name);
  const agentKey = newAgentKey();
  const agent = new StdioJsonRpcTransport();
  let initialize: JSONRPCRequest | undefined;
  let initialized: JSONRPCMessage | undefined;
  /** The agent's requests in flight on the current link, by id. */
  const pending = new Map<string, Asked>();
  /** The link's own re-initialize, answered to nobody. */
  let ownInitialize: RequestId | undefined;
  let link: RemoteMcpLink | undefined;
  let down: string | undefined;
  /** Whether the remote ptydeck ever answered: before that, a failure is the command's, not a drop. */
  let answered = false;
  let ending = false;
  let finish!: (code: number) => void;
  const finished = new Promise<number>((resolve) => (finish = resolve));
  let delay = BACKOFF_FIRST_MS;

  const answerHere = ({ id, method }: Asked, text: string) =>
    void agent.send(
      method === 'tools/call'
        ? { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }], isError: true } }
        : method === 'ping'
          ? { jsonrpc: '2.0', id, result: {} }
          : { jsonrpc: '2.0', id, error: { code: -32000, message: text } },
    );

  const connect = (): RemoteMcpLink => {
    const next = new RemoteMcpLink(remote, agentKey, log);
    next.transport.onmessage = (message) => {
      if (next !== link) return;
      if ((isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) && message.id !== undefined) {
        answered = true;
        if (ownInitialize !== undefined && message.id === ownInitialize) {
          ownInitialize = undefined;
          if (isJSONRPCResultResponse(message)) {
            down = undefined;
            delay = BACKOFF_FIRST_MS;
            log(`ptydeck mcp: reconnected to ${remote.name}`);
          }
          return;
        }
        pending.delete(String(message.id));
      }
      void agent.send(message);
    };
    void next.closed.then((exit) => dropped(next, exit));
    next.start().catch((error: unknown) => log(`ptydeck mcp: ${(error as Error).message}`));
    return next;
  };

  function dropped(gone: RemoteMcpLink, exit: { code: number | null; failure: string | undefined; lastError: string | undefined }): void {
    if (gone !== link || ending) return;
    link = undefined;
    ownInitialize = undefined;
    const why = exit.lastError ?? `ssh exited with code ${exit.code}`;
    const message = exit.failure
      ? exit.failure
      : !answered
        ? // Never reached (a refused key, a host that is down): no link dropped, no terminal runs there, and this server ends.
          `Could not reach remote '${remote.name}' (${remote.destination}) through ssh: ${why}. This ptydeck MCP server ends; ` +
          `once \`ssh ${remote.destination}\` logs in without a prompt, start it again.`
        : `The ssh link to remote '${remote.name}' (${remote.destination}) dropped (${why}); ` +
        `ptydeck is reconnecting to ${remote.name}. The terminals there keep running: call again in a few seconds.`;
    for (const request of pending.values()) answerHere(request, message);
    pending.clear();
    if (!answered) {
      // It never ran there: nothing to reconnect to. The one line, and the agent sees this server end.
      log(`ptydeck mcp: ${exit.failure ?? `could not reach remote '${remote.name}' (${remote.destination}) through ssh${exit.lastError ? `: ${exit.lastError}` : ''}`}`);
      finish(1);
      return;
    }
    down = message;
    log(`ptydeck mcp: reconnecting to ${remote.name} in ${delay} ms`);
    const timer = setTimeout(reconnect, delay);
    timer.unref();
    delay = Math.min(delay * 2, BACKOFF_MAX_MS);
  }

  function reconnect(): void {
    if (ending) return;
    link = connect();
    if (initialize) {
      ownInitialize = `ptydeck-remote-${Date.now()}`;
      void link.send({ ...initialize, id: ownInitialize }).catch(() => {});
      if (initialized) void link.send(initialized).catch(() => {});
    } else {
      down = undefined;
    }
  }

  agent.onmessage = (message) => {
    if (isJSONRPCRequest(message) && message.method === 'initialize') initialize = message;
    if (isJSONRPCNotification(message) && message.method === 'notifications/initialized') initialized = message;
    if (down !== undefined || !link) {
      // Answered here, at once: the agent is never left waiting on a link that is not there.
      if (isJSONRPCRequest(message)) answerHere(message, down ?? `ptydeck is reconnecting to ${remote.name}`);
      return;
    }
    if (isJSONRPCRequest(message)) pending.set(String(message.id), { id: message.id, method: message.method });
    const current = link;
    current.send(message).catch((error: unknown) => {
      if (isJSONRPCRequest(message) && pending.delete(String(message.id))) answerHere(message, `could not send to remote '${remote.name}': ${(error as Error).message}`);
    });
  };
  agent.onerror = (error) => log(`ptydeck mcp: stdio: ${error.message}`);
  process.stdin.once('end', () => finish(0));
  process.stdin.once('close', () => finish(0));

  log(`ptydeck mcp: connecting to remote '${remote.name}' (${remote.destination}) with ssh; the agent's terminals run there`);
  link = connect();
  await agent.start();
  const code = await Promise.race([finished, stopped.then(exitCodeFor)]);
  ending = true;
  await bounded(link?.close() ?? Promise.resolve(), SHUTDOWN_MS);
  await agent.close().catch(() => {});
  return code;
}
