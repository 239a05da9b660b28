// `ptydeck mcp --embedded`: a core of the host's services in the agent's own `ptydeck mcp` process, spoken to over stdio, served to nobody else.
import { randomUUID } from 'node:crypto';
import type { SandboxProfile } from '@ptydeck/contract';
import { bounded } from '../common/bounded.js';
import { exitCodeFor, nextSignal, type StopReason } from '../common/signals.js';
import { protocolOnlyStdout, StdioJsonRpcTransport } from '../common/stdio-transport.js';
import { resolveStateDir } from '../common/discovery.js';
import { connectChecked } from '../server/request-params.js';
import { buildHostServices } from './host-services.js';

/** The stdio server must be gone within 5 s of SIGINT/SIGTERM. */
const SHUTDOWN_MS = 4000;

/**
 * An embedded core, only when asked (--embedded): its sessions end when this
 * process exits, and no panel shows them. Its services are the host's
 * (host-services.ts), so its agent's shells get the same sandbox, environment
 * and timeline; but nothing serves them: no port, no /ticket or /snapshot,
 * only its one agent over this process's stdio reaches its sessions. So no
 * chats, no process watch, no store, and screens parsed in this thread when
 * the agent reads one (no worker: no panel's frames wait on a parse).
 */
export async function runEmbeddedMcp(command: { sandbox?: SandboxProfile }, log: (line: string) => void): Promise<number> {
  protocolOnlyStdout();
  const signals = nextSignal();
  try {
    return await embedded(command, log, signals.stopped);
  } finally {
    signals.dispose();
  }
}

async function embedded(command: { sandbox?: SandboxProfile }, log: (line: string) => void, stopped: Promise<StopReason>): Promise<number> {
  log('ptydeck mcp: running an embedded core (--embedded): its sessions end when this process exits, and no panel shows them');
  // The state directory's host's (the sandbox hides it), with labels of its own: its sessions are none of that host's.
  const services = await buildHostServices({ stateDir: resolveStateDir(), panels: false, screenThread: 'main' });
  const server = services.createMcpServer({ id: `agent-${randomUUID()}`, transport: 'stdio', ...(command.sandbox ? { sandbox: command.sandbox } : {}) });
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
      await services.dispose();
    })(),
    SHUTDOWN_MS,
  );
  return exitCodeFor(reason);
}
