// Forwards MCP frames between an agent on stdio and the host's /mcp, so its sessions live in the host.
import type { Readable, Writable } from 'node:stream';
import {
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { newAgentKey } from '../server/agent-identity.js';
import { AGENT_KEY_HEADER, BRIDGE_HEADER, CHAT_BINDING_HEADER, SANDBOX_HEADER } from '../server/bridge-header.js';
import { CLIENT_CWD_HEADER } from '../server/client-cwd.js';
import { HostLink, type HostTarget } from './host-link.js';
import { StdioJsonRpcTransport } from './stdio-transport.js';

export interface BridgeOptions {
  /** The host to join first. */
  target: HostTarget;
  /** A chat's binding, sent with every request so the server files this connection under the chat. */
  chatBinding?: string;
  /** The sandbox profile for this agent's shells (`--sandbox`), sent with every connect. */
  sandbox?: string;
  /**
   * Finds (or starts) a host after the one joined is gone. Without it, every
   * call after the loss gets the error: a chat's bridge belongs to its host.
   */
  reconnect?: () => Promise<HostTarget>;
  stdin?: Readable;
  stdout?: Writable;
  log: (line: string) => void;
}

export interface StdioBridge {
  /** Settles when the agent closes stdin (or stdout). */
  done: Promise<void>;
  /** Ends the MCP session in the host (its sessions stay there) and closes both sides. */
  close(): Promise<void>;
}

type LinkState = { kind: 'up'; link: HostLink } | { kind: 'lost'; message: string; told: boolean };

/**
 * Forwards MCP frames between an agent on stdio and a ptydeck host's /mcp, so
 * the agent's sessions live in (and show up in) that host. Frames pass through
 * untouched; the bridge learns only the negotiated protocol version for the
 * HTTP headers, and answers a request itself when the host is gone or when a
 * line is not a JSON-RPC message (the host never sees that line).
 *
 * When the host dies, every request in flight and the agent's next call get an
 * error saying its sessions are gone; the call after that joins (or starts) a
 * new host and opens a new MCP session there with the agent's own initialize,
 * so the agent carries on without restarting its MCP connection. It is the
 * same owner there (AGENT_KEY_HEADER), so the sessions the old host lost and
 * the new one restored are its own again.
 */
export async function startStdioBridge(options: BridgeOptions): Promise<StdioBridge> {
  const stdin = options.stdin ?? process.stdin;
  const stdio = new StdioJsonRpcTransport(stdin, options.stdout ?? process.stdout);
  const headers: Record<string, string> = {
    [BRIDGE_HEADER]: 'stdio',
    // The host starts in the home directory; the agent's shells belong where the agent works.
    [CLIENT_CWD_HEADER]: encodeURIComponent(process.cwd()),
    // This bridge's identity on every host it joins, kept only here: its agent's lost sessions stay its own after a restart.
    [AGENT_KEY_HEADER]: newAgentKey(),
    ...(options.chatBinding ? { [CHAT_BINDING_HEADER]: options.chatBinding } : {}),
    ...(options.sandbox ? { [SANDBOX_HEADER]: options.sandbox } : {}),
  };
  /** The agent's initialize and initialized, replayed to a new host. */
  let initialize: JSONRPCRequest | undefined;
  let initialized: JSONRPCMessage | undefined;
  let initializeId: RequestId | undefined;
  /** Requests forwarded and not yet answered, by id. */
  const pending = new Map<string, RequestId>();
  let reconnecting: Promise<HostLink> | undefined;
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));

  const answerError = (id: RequestId, message: string) => void stdio.send({ jsonrpc: '2.0', id, error: { code: -32000, message } });

  const openLink = (target: HostTarget): HostLink => {
    const link: HostLink = new HostLink(target, headers, {
      onmessage: (message) => {
        if ((isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) && message.id !== undefined) {
          pending.delete(String(message.id));
          if (initializeId !== undefined && message.id === initializeId && isJSONRPCResultResponse(message)) {
            link.useProtocolVersion(message.result);
            initializeId = undefined;
          }
        }
        void stdio.send(message);
      },
      onlost: (reason) => lose(link, reason),
      log: options.log,
    });
    return link;
  };

  let state: LinkState = { kind: 'up', link: openLink(options.target) };

  function lose(link: HostLink, reason: string): void {
    if (state.kind !== 'up' || state.link !== link) return;
    const message =
      `The ptydeck host (pid ${link.target.pid}) at ${link.target.url} is gone (${reason}); this session is gone with it: ` +
      `the processes of its terminals have ended. ` +
      (options.reconnect
        ? 'Call again: ptydeck mcp joins or starts a new host, with a new session, where those terminals are listed as lost (read-only, with the output the old host had kept) unless session persistence is off.'
        : 'Restart the MCP connection once ptydeck runs again.');
    options.log(`ptydeck mcp: ${message}`);
    // Whoever was waiting hears it now; if nobody was, the next call does.
    state = { kind: 'lost', message, told: pending.size > 0 };
    for (const id of pending.values()) answerError(id, message);
    pending.clear();
    link.lose(reason);
  }

  async function reconnect(): Promise<HostLink> {
    const link = openLink(await options.reconnect!());
    try {
      await link.start();
      if (initialize) await link.initialize(initialize);
      if (initialized) await link.send(initialized);
    } catch (error) {
      await link.close(false);
      throw error;
    }
    options.log(`ptydeck mcp: joined the ptydeck host at ${link.target.url} (pid ${link.target.pid}) with a new session`);
    state = { kind: 'up', link };
    return link;
  }

  /** The link to send `message` on, or undefined when the bridge answered (or dropped) it itself. */
  async function linkFor(message: JSONRPCMessage): Promise<HostLink | undefined> {
    if (state.kind === 'up') return state.link;
    const request = isJSONRPCRequest(message) ? message : undefined;
    if (!state.told || !options.reconnect) {
      if (request) {
        answerError(request.id, state.message);
        state.told = true;
      }
      return undefined;
    }
    // Notifications and answers meant for the old host mean nothing to a new one.
    if (!request) return undefined;
    try {
      return await (reconnecting ??= reconnect().finally(() => (reconnecting = undefined)));
    } catch (error) {
      answerError(request.id, `ptydeck mcp could not reach a ptydeck host: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  }

  async function forward(message: JSONRPCMessage): Promise<void> {
    const link = await linkFor(message);
    if (!link) return;
    if (isJSONRPCRequest(message)) pending.set(String(message.id), message.id);
    try {
      await link.send(message);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (await link.isGone(reason)) return lose(link, reason);
      options.log(`ptydeck mcp: forwarding to ${link.target.url} failed: ${reason}`);
      if (isJSONRPCRequest(message) && pending.delete(String(message.id))) {
        answerError(message.id, `ptydeck at ${link.target.url} did not accept the request (${reason}).`);
      }
    }
  }

  stdio.onmessage = (message: JSONRPCMessage) => {
    if (isJSONRPCRequest(message) && message.method === 'initialize') {
      initialize = message;
      initializeId = message.id;
    }
    if (isJSONRPCNotification(message) && message.method === 'notifications/initialized') initialized = message;
    forward(message).catch((error: unknown) => options.log(`ptydeck mcp: ${error instanceof Error ? error.message : String(error)}`));
  };
  stdio.onerror = (error) => options.log(`ptydeck mcp: stdio: ${error.message}`);
  stdio.onclose = () => finish();
  // The stdio transport does not watch for EOF; an agent that closes our stdin is done with us.
  stdin.once('end', () => finish());
  stdin.once('close', () => finish());

  await state.link.start();
  await stdio.start();

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      finish();
      if (state.kind === 'up') await state.link.close(true);
      await stdio.close().catch(() => {});
    })());
  return { done, close };
}
