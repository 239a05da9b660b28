// `ptydeck mcp`: the stdio MCP server agents run, a bridge to the host (or an embedded core on request).
import { randomUUID } from 'node:crypto';
import { UnsafeStateError } from '../server/discovery.js';
import { ensureHost, HostProtocolError, UntrustedHostError } from './ensure-host.js';
import type { HostTarget } from './host-link.js';
import { connectChecked } from '../server/request-params.js';
import { bounded } from '../common/bounded.js';
import { exitCodeFor, nextSignal, type StopReason } from './signals.js';
import { startStdioBridge } from './stdio-bridge.js';
import type { SandboxProfileName } from './args.js';
import { CHAT_BINDING_ENV } from '../chats/chat-bindings.js';
import { StdioJsonRpcTransport } from './stdio-transport.js';

/** The stdio server must be gone within 5 s of SIGINT/SIGTERM. */
const SHUTDOWN_MS = 4000;

/**
 * `ptydeck mcp`: a bridge to the ptydeck host, which it starts if none runs, so
 * an agent's shells always land where a panel shows them and outlive this
 * process. An embedded core only when asked (--embedded). Logs go to stderr only.
 */
export async function runMcp(command: { embedded: boolean; sandbox?: SandboxProfileName }, log: (line: string) => void): Promise<number> {
  // stdout carries protocol frames only: a stray console.log anywhere in the core would corrupt it.
  console.log = console.info = console.debug = (...args: unknown[]) => console.error(...args);
  const signals = nextSignal();
  try {
    if (command.embedded) return await embedded(log, signals.stopped);
    const chatBinding = process.env[CHAT_BINDING_ENV] || undefined;
    let target: HostTarget;
    try {
      target = await findHost(log, chatBinding === undefined);
    } catch (error) {
      if (error instanceof UnsafeStateError || error instanceof HostProtocolError || error instanceof UntrustedHostError) throw error;
      // Started for a chat: only the host the chat runs in will do, and it is not there.
      if (chatBinding) log(`ptydeck mcp: ${CHAT_BINDING_ENV} is set, but the ptydeck it belongs to is not running (${(error as Error).message})`);
      else log(`ptydeck mcp: ${(error as Error).message}`);
      return 1;
    }
    return await bridge(target, log, signals.stopped, chatBinding, command.sandbox);
  } finally {
    signals.dispose();
  }
}

async function findHost(log: (line: string) => void, start: boolean): Promise<HostTarget> {
  const { record } = await ensureHost({ log, start });
  return { url: record.url, token: record.token, pid: record.pid };
}

async function bridge(target: HostTarget, log: (line: string) => void, stopped: Promise<StopReason>, chatBinding?: string, sandbox?: SandboxProfileName): Promise<number> {
  log(`ptydeck mcp: connected to the running ptydeck at ${target.url}; sessions appear in its panel`);
  const link = await startStdioBridge({
    target,
    log,
    ...(chatBinding ? { chatBinding } : { reconnect: (start: boolean) => findHost(log, start) }),
    ...(sandbox ? { sandbox } : {}),
  });
  const reason = await Promise.race([stopped, link.done.then(() => 'eof' as const)]);
  // Sessions stay in the host; only this MCP session ends.
  await bounded(link.close(), SHUTDOWN_MS);
  return exitCodeFor(reason);
}

async function embedded(log: (line: string) => void, stopped: Promise<StopReason>): Promise<number> {
  log('ptydeck mcp: running an embedded core (--embedded): its sessions end when this process exits, and no panel shows them');
  // Loaded only here: a bridge to a running ptydeck needs none of the PTY, agent or MCP server stack.
  // (The stdio transport is loaded either way: the bridge speaks it too.)
  const [{ createAgentMcpServer, createTerminalTool }, { createPtyService }] = await Promise.all([
    import('../terminal-tool/index.js'),
    import('../pty/pty-service.js'),
  ]);
  const service = createPtyService();
  const tool = createTerminalTool(service);
  const server = createAgentMcpServer({ tool, connection: { id: `agent-${randomUUID()}`, transport: 'stdio' } });
  const transport = new StdioJsonRpcTransport();
  let eof!: () => void;
  const ended = new Promise<StopReason>((resolve) => (eof = () => resolve('eof')));
  process.stdin.once('end', eof);
  process.stdin.once('close', eof);
  await connectChecked(server, transport);
  // connect() installed the server's own close handler; keep it and also stop on close.
  const serverOnClose = transport.onclose;
  transport.onclose = () => {
    serverOnClose?.();
    eof();
  };
  const reason = await Promise.race([stopped, ended]);
  await bounded(
    (async () => {
      await server.close().catch(() => {});
      tool.dispose();
      await service.dispose();
    })(),
    SHUTDOWN_MS,
  );
  return exitCodeFor(reason);
}
