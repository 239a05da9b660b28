// `ptydeck mcp --embedded`: a PTY service and the agent tool in the agent's own `ptydeck mcp` process, over stdio, no host.
import { randomUUID } from 'node:crypto';
import { bounded } from '../common/bounded.js';
import { exitCodeFor, nextSignal, type StopReason } from '../common/signals.js';
import { protocolOnlyStdout, StdioJsonRpcTransport } from '../common/stdio-transport.js';
import { createPtyService } from '../pty/pty-service.js';
import { connectChecked } from '../server/request-params.js';
import { createAgentMcpServer, createTerminalTool } from '../terminal-tool/index.js';

/** The stdio server must be gone within 5 s of SIGINT/SIGTERM. */
const SHUTDOWN_MS = 4000;

/**
 * An embedded core, only when asked (--embedded): its sessions end when this
 * process exits, and no panel shows them. The one place besides startHost
 * that builds a PTY service, and why it is not a startHost with options:
 * a host serves (local-server.ts builds its services around the HTTP server,
 * whose agent registry follows MCP connections), so it would listen on a
 * loopback port answering /ticket and /snapshot to any process outside its
 * sessions, and start the screen worker, chats and the timeline, where this
 * core promises that nothing but its one agent, over this process's stdio (a
 * transport /mcp has no entry for), reaches its sessions. Starting it through
 * the root needs the root to build its services apart from serving them.
 */
export async function runEmbeddedMcp(log: (line: string) => void): Promise<number> {
  protocolOnlyStdout();
  const signals = nextSignal();
  try {
    return await embedded(log, signals.stopped);
  } finally {
    signals.dispose();
  }
}

async function embedded(log: (line: string) => void, stopped: Promise<StopReason>): Promise<number> {
  log('ptydeck mcp: running an embedded core (--embedded): its sessions end when this process exits, and no panel shows them');
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
