import { randomUUID } from 'node:crypto';
import { readDiscovery, type DiscoveryRecord } from '../server/discovery.js';
import { newChallenge, PROOF_PATH, proofHolds } from '../server/server-proof.js';
import { connectChecked } from '../server/request-params.js';
import { bounded, exitCodeFor, nextSignal, type StopReason } from './signals.js';
import { startStdioBridge } from './stdio-bridge.js';
import { CHAT_BINDING_ENV } from '../acp/chat-bindings.js';
import { StdioJsonRpcTransport } from './stdio-transport.js';

/** The stdio server must be gone within 5 s of SIGINT/SIGTERM. */
const SHUTDOWN_MS = 4000;
const PROBE_MS = 1500;

/** `ptydeck mcp`: bridge to a running ptydeck, else an embedded core. Logs go to stderr only. */
export async function runMcp(command: { embedded: boolean }, log: (line: string) => void): Promise<number> {
  // stdout carries protocol frames only: a stray console.log anywhere in the core would corrupt it.
  console.log = console.info = console.debug = (...args: unknown[]) => console.error(...args);
  const signals = nextSignal();
  try {
    const chatBinding = process.env[CHAT_BINDING_ENV] || undefined;
    const target = command.embedded ? undefined : await findRunningPtydeck(log);
    if (chatBinding && !target) {
      // Started for a chat in a running ptydeck: an embedded core would put the chat's shells where nobody sees them.
      log(`ptydeck mcp: ${CHAT_BINDING_ENV} is set, but the ptydeck it belongs to is not running (or --embedded was given); not starting an embedded core`);
      return 1;
    }
    return target ? await bridge(target, log, signals.stopped, chatBinding) : await embedded(log, signals.stopped);
  } finally {
    signals.dispose();
  }
}

async function findRunningPtydeck(log: (line: string) => void): Promise<DiscoveryRecord | undefined> {
  const found = readDiscovery();
  if (found.status === 'missing') return undefined;
  if (found.status === 'invalid') {
    log(`ptydeck mcp: ignoring ${found.path}: ${found.reason}`);
    return undefined;
  }
  if (found.status === 'stale') {
    log(`ptydeck mcp: ${found.path} is stale (pid ${found.record.pid} is gone)`);
    return undefined;
  }
  // The pid may have been reused and the port taken by another process: the server must prove it
  // knows the token before it is sent (a challenge it can only answer with the token's HMAC).
  const challenge = newChallenge();
  try {
    const url = new URL(PROOF_PATH, found.record.url);
    url.searchParams.set('challenge', challenge);
    const response = await fetch(url, { signal: AbortSignal.timeout(PROBE_MS) });
    const answer = response.ok ? ((await response.json().catch(() => null)) as { proof?: unknown } | null) : null;
    if (!response.ok) await response.body?.cancel();
    if (proofHolds(found.record.token, challenge, answer?.proof)) return found.record;
    log(`ptydeck mcp: ${found.record.url} did not prove it is the ptydeck in ${found.path} (answered ${response.status}); not sending it anything`);
  } catch (error) {
    log(`ptydeck mcp: ${found.record.url} is not answering (${(error as Error).message})`);
  }
  return undefined;
}

async function bridge(target: DiscoveryRecord, log: (line: string) => void, stopped: Promise<StopReason>, chatBinding?: string): Promise<number> {
  log(`ptydeck mcp: connected to the running ptydeck at ${target.url}; sessions appear in its panel`);
  const link = await startStdioBridge({ url: target.url, token: target.token, log, ...(chatBinding ? { chatBinding } : {}) });
  const reason = await Promise.race([stopped, link.done.then(() => 'eof' as const)]);
  // Sessions stay in the running ptydeck; only this MCP session ends.
  await bounded(link.close(), SHUTDOWN_MS);
  return exitCodeFor(reason);
}

async function embedded(log: (line: string) => void, stopped: Promise<StopReason>): Promise<number> {
  log('ptydeck mcp: no running ptydeck found; running an embedded core (its sessions end when this process exits)');
  // Loaded only here: a bridge to a running ptydeck needs none of the PTY, agent or MCP server stack.
  // (The stdio transport is loaded either way: the bridge speaks it too.)
  const [{ createAgentMcpServer }, { createTerminalTool }, { createPtyService }] = await Promise.all([
    import('../agent/mcp-server.js'),
    import('../agent/terminal-tool.js'),
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
