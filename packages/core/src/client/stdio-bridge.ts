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
import { newAgentKey } from '../common/agent-identity.js';
import { AGENT_KEY_HEADER, BRIDGE_HEADER, CHAT_BINDING_HEADER, CLIENT_CWD_HEADER, SANDBOX_HEADER } from '../common/bridge-header.js';
import { HostLink, type HostTarget } from './host-link.js';
import { StdioJsonRpcTransport } from '../common/stdio-transport.js';

export interface BridgeOptions {
  /** The host to join first. */
  target: HostTarget;
  /** A chat's binding, sent with every request so the server files this connection under the chat. */
  chatBinding?: string;
  /** The sandbox profile for this agent's shells (`--sandbox`), sent with every connect. */
  sandbox?: string;
  /** This bridge's identity (AGENT_KEY_HEADER) when it is given one (`--agent-key-stdin`); else a new one. */
  agentKey?: string;
  /**
   * Finds a host after the one joined is gone, starting one when `start` (a
   * killed host) and not after `ptydeck stop` (the developer stopped it). It
   * rejects when there is none. Without it, every call after the loss gets
   * the error: a chat's bridge belongs to its host.
   */
  reconnect?: (start: boolean) => Promise<HostTarget>;
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

/**
 * Lost: the host died; the next tool call is told, the one after joins or
 * starts a new host. Stopped: `ptydeck stop` ended it; tool calls are told so
 * until the developer starts a host (never the one stopped, still shutting
 * down: `token` is its), which the next call then joins.
 */
type LinkState = { kind: 'up'; link: HostLink } | { kind: 'lost' | 'stopped'; message: string; told: boolean; token: string };

/** The part of a request the bridge needs to answer it itself. */
type Asked = Pick<JSONRPCRequest, 'id' | 'method'>;

/**
 * Forwards MCP frames between an agent on stdio and a ptydeck host's /mcp, so
 * the agent's sessions live in (and show up in) that host. Frames pass through
 * untouched; the bridge learns only the negotiated protocol version for the
 * HTTP headers, and answers a request itself when the host is gone or when a
 * line is not a JSON-RPC message (the host never sees that line).
 *
 * When the host dies, every tool call in flight and the agent's next one get
 * an error result saying its sessions are gone; the call after that joins (or
 * starts) a new host and opens a new MCP session there with the agent's own
 * initialize, so the agent carries on without restarting its MCP connection.
 * It is the same owner there (AGENT_KEY_HEADER), so the sessions the old host
 * lost and the new one restored are its own again. A host stopped by
 * `ptydeck stop` says so first (HOST_STOPPED_NOTIFICATION): then no host is
 * started, and tool calls get an error result saying ptydeck was stopped until
 * the developer starts one, which the next call joins.
 */
export async function startStdioBridge(options: BridgeOptions): Promise<StdioBridge> {
  const stdin = options.stdin ?? process.stdin;
  const stdio = new StdioJsonRpcTransport(stdin, options.stdout ?? process.stdout);
  const headers: Record<string, string> = {
    [BRIDGE_HEADER]: 'stdio',
    // The host starts in the home directory; the agent's shells belong where the agent works.
    [CLIENT_CWD_HEADER]: encodeURIComponent(process.cwd()),
    // This bridge's identity on every host it joins, kept only here: its agent's lost sessions stay its own after a restart.
    [AGENT_KEY_HEADER]: options.agentKey ?? newAgentKey(),
    ...(options.chatBinding ? { [CHAT_BINDING_HEADER]: options.chatBinding } : {}),
    ...(options.sandbox ? { [SANDBOX_HEADER]: options.sandbox } : {}),
  };
  /** The agent's initialize and initialized, replayed to a new host. */
  let initialize: JSONRPCRequest | undefined;
  let initialized: JSONRPCMessage | undefined;
  let initializeId: RequestId | undefined;
  /** Requests forwarded and not yet answered, by id. */
  const pending = new Map<string, Asked>();
  let reconnecting: Promise<HostLink | undefined> | undefined;
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));

  /**
   * Answers a request the host cannot: a tool call with an error result, which
   * the model reads (a JSON-RPC error is, to some clients, the tool crashing);
   * a ping with its empty result (this process is alive); anything else, which
   * has no error result, with a JSON-RPC error.
   */
  const answerWithoutHost = ({ id, method }: Asked, text: string) =>
    void stdio.send(
      method === 'tools/call'
        ? { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }], isError: true } }
        : method === 'ping'
          ? { jsonrpc: '2.0', id, result: {} }
          : { jsonrpc: '2.0', id, error: { code: -32000, message: text } },
    );

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
    const message = link.stopped ? stoppedMessage(link.target.pid, options.reconnect !== undefined) : lostMessage(link.target, reason, options.reconnect !== undefined);
    options.log(`ptydeck mcp: ${message}`);
    // Whoever was waiting hears it now; if no tool call was, the next one does.
    const asked = [...pending.values()];
    state = { kind: link.stopped ? 'stopped' : 'lost', message, told: asked.some((request) => request.method === 'tools/call'), token: link.target.token };
    for (const request of asked) answerWithoutHost(request, message);
    pending.clear();
    link.lose(reason);
  }

  /** A link to a new host, or undefined while ptydeck stays stopped (no host, or only the one stopped). */
  async function reconnect(): Promise<HostLink | undefined> {
    let target: HostTarget;
    if (state.kind === 'stopped') {
      const stoppedToken = state.token;
      const found = await options.reconnect!(false).catch(() => undefined);
      if (!found || found.token === stoppedToken) return undefined;
      target = found;
    } else {
      target = await options.reconnect!(true);
    }
    const link = openLink(target);
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
    // Notifications and answers meant for the old host mean nothing to a new one.
    if (!isJSONRPCRequest(message)) return undefined;
    if (!state.told || !options.reconnect) {
      answerWithoutHost(message, state.message);
      // The model hears of the loss through a tool call; a client's own requests (tools/list, ping) do not tell it.
      if (message.method === 'tools/call') state.told = true;
      return undefined;
    }
    try {
      const link = await (reconnecting ??= reconnect().finally(() => (reconnecting = undefined)));
      if (!link) answerWithoutHost(message, state.message);
      return link;
    } catch (error) {
      answerWithoutHost(message, `ptydeck mcp could not reach a ptydeck host: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  }

  async function forward(message: JSONRPCMessage): Promise<void> {
    const link = await linkFor(message);
    if (!link) return;
    if (isJSONRPCRequest(message)) pending.set(String(message.id), { id: message.id, method: message.method });
    try {
      await link.send(message);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (await link.isGone(reason)) return lose(link, reason);
      options.log(`ptydeck mcp: forwarding to ${link.target.url} failed: ${reason}`);
      if (isJSONRPCRequest(message) && pending.delete(String(message.id))) {
        answerWithoutHost(message, `ptydeck at ${link.target.url} did not accept the request (${reason}).`);
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

function lostMessage(target: HostTarget, reason: string, reconnects: boolean): string {
  return (
    `The ptydeck host (pid ${target.pid}) at ${target.url} is gone (${reason}); this session is gone with it: ` +
    `the processes of its terminals have ended. ` +
    (reconnects
      ? 'Call again: ptydeck mcp joins or starts a new host, with a new session, where those terminals are listed as lost (read-only, with the output the old host had kept) unless session persistence is off.'
      : 'Restart the MCP connection once ptydeck runs again.')
  );
}

/** Also the model's: it says who decides to start ptydeck again, so that the model asks rather than runs it. */
function stoppedMessage(pid: number, joins: boolean): string {
  return (
    `ptydeck was stopped (\`ptydeck stop\`, or SIGTERM or SIGINT to its host); run \`ptydeck\` to start it again. ` +
    `The host (pid ${pid}) ended the processes of this session's terminals as it stopped. Stopping it was the developer's decision: ` +
    (joins
      ? 'this MCP server starts no host by itself, and joins the one the developer starts. After `ptydeck stop` those terminals are gone for good; after a signal they are listed there with their output (unless session persistence is off).'
      : 'restart the MCP connection once ptydeck runs again.')
  );
}
