// `ptydeck mcp`: the stdio MCP server agents run, a bridge to the host (`--embedded` runs host/embedded-mcp.ts instead).
import type { SandboxProfile } from '@ptydeck/contract';
import { UnsafeStateError } from '../common/discovery.js';
import { ensureHost, HostProtocolError, UntrustedHostError } from './ensure-host.js';
import type { HostTarget } from './host-link.js';
import { bounded } from '../common/bounded.js';
import { exitCodeFor, nextSignal, type StopReason } from '../common/signals.js';
import { startStdioBridge } from './stdio-bridge.js';
import { protocolOnlyStdout } from '../common/stdio-transport.js';
import { CHAT_BINDING_ENV } from '../common/env-names.js';
import { isAgentKey } from '../common/agent-identity.js';

/** The stdio server must be gone within 5 s of SIGINT/SIGTERM. */
export const MCP_SHUTDOWN_MS = 4000;

/**
 * `ptydeck mcp`: a bridge to the ptydeck host, which it starts if none runs, so
 * an agent's shells always land where a panel shows them and outlive this
 * process. Logs go to stderr only.
 */
export async function runMcp(command: { sandbox?: SandboxProfile; remote?: string; agentKeyStdin?: boolean }, log: (line: string) => void): Promise<number> {
  protocolOnlyStdout();
  const signals = nextSignal();
  try {
    if (command.remote !== undefined) return await (await import('./remote-mcp.js')).runRemoteMcp(command.remote, log, signals.stopped);
    const agentKey = command.agentKeyStdin ? await readAgentKey(process.stdin) : undefined;
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
    return await bridge(target, log, signals.stopped, chatBinding, command.sandbox, agentKey);
  } finally {
    signals.dispose();
  }
}

async function findHost(log: (line: string) => void, start: boolean): Promise<HostTarget> {
  const { record } = await ensureHost({ log, start });
  return { url: record.url, token: record.token, pid: record.pid };
}

async function bridge(target: HostTarget, log: (line: string) => void, stopped: Promise<StopReason>, chatBinding?: string, sandbox?: SandboxProfile, agentKey?: string): Promise<number> {
  log(`ptydeck mcp: connected to the running ptydeck at ${target.url}; sessions appear in its panel`);
  const link = await startStdioBridge({
    target,
    log,
    ...(chatBinding ? { chatBinding } : { reconnect: (start: boolean) => findHost(log, start) }),
    ...(sandbox ? { sandbox } : {}),
    ...(agentKey ? { agentKey } : {}),
  });
  const reason = await Promise.race([stopped, link.done.then(() => 'eof' as const)]);
  // Sessions stay in the host; only this MCP session ends.
  await bounded(link.close(), MCP_SHUTDOWN_MS);
  return exitCodeFor(reason);
}

/**
 * The first line of stdin, which `ptydeck mcp --remote` on another machine
 * sends before any frame: the agent key it keeps across reconnects, so that
 * the agent owns its terminals here again after the link drops. Read byte
 * for byte up to the newline; what follows it is left for the protocol.
 */
async function readAgentKey(stdin: NodeJS.ReadStream): Promise<string> {
  const line = await new Promise<string>((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    const finish = (error?: Error, value?: string) => {
      stdin.off('readable', onReadable);
      stdin.off('end', onEnd);
      if (error) reject(error);
      else resolve(value!);
    };
    const onEnd = () => finish(new Error('stdin ended before the agent key (--agent-key-stdin)'));
    const onReadable = () => {
      let chunk: Buffer | null;
      while ((chunk = stdin.read() as Buffer | null) !== null) {
        buffered = Buffer.concat([buffered, chunk]);
        const at = buffered.indexOf(0x0a);
        if (at !== -1) {
          const rest = buffered.subarray(at + 1);
          if (rest.length > 0) stdin.unshift(rest);
          return finish(undefined, buffered.subarray(0, at).toString('latin1').trim());
        }
        if (buffered.length > 256) return finish(new Error('--agent-key-stdin expects a key on the first line of stdin'));
      }
    };
    stdin.on('readable', onReadable);
    stdin.once('end', onEnd);
  });
  if (!isAgentKey(line)) throw new Error('--agent-key-stdin: the first line of stdin is not an agent key (43 to 128 base64url characters)');
  return line;
}
