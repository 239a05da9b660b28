// The /mcp endpoint: one MCP session per agent connection, ended when its client is gone.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { ErrorCode, isJSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { reportError } from '@ptydeck/contract';
import { HOST_STOPPED_NOTIFICATION } from '../common/stop-protocol.js';
import type { AgentRegistry } from './agent-registry.js';
import type { ChatBinding, ChatBindings } from '../chats/chat-bindings.js';
import { agentOwnerId, isAgentKey } from '../common/agent-identity.js';
import { AGENT_KEY_HEADER, BRIDGE_HEADER, CHAT_BINDING_HEADER, SANDBOX_HEADER } from '../common/bridge-header.js';
import { isSandboxProfile, SANDBOX_PROFILES } from '../sandbox/index.js';
import type { SandboxProfile } from '@ptydeck/contract';
import { ChatPeerCheck } from './chat-peer.js';
import { errorResponse, judgeFrame } from '../common/jsonrpc-frame.js';
import { checkParams, connectChecked } from './request-params.js';
import { clientCwdOf } from './client-cwd.js';
import { handleMcpRequest, SSE_COMMIT_MS } from './mcp-response.js';
import { QuietCalls } from './quiet-calls.js';

/** One MCP connection's identity, as the agent tool's server factory takes it. */
export interface McpConnection {
  id: string;
  transport: 'http' | 'stdio';
  /** Set for a connection bound to a chat: its agent's name. */
  ownerName?: string;
  /** Set for a connection bound to a chat: the chat's directory, where its shells start. */
  cwd?: string;
  onInitialized?: (client: { name: string; version: string | null }) => void;
}

export type McpServerFactory = (connection: McpConnection) => McpServer;

const MAX_BODY_BYTES = 4 * 1024 * 1024;

interface McpSession {
  transport: WebStandardStreamableHTTPServerTransport;
  /** Its requests that asked for no progress, answered without an event stream. */
  quiet: QuietCalls;
  server: McpServer;
  connectionId: string;
  /** 'stdio': a `ptydeck mcp` bridge (BRIDGE_HEADER). */
  kind: 'http' | 'stdio';
  /** The chat owner it speaks for, when it opened with a binding. */
  boundTo: string | undefined;
  /** Open HTTP requests (POSTs in flight and the long-lived GET stream). */
  open: number;
  /** Set once the client held a GET stream: only such a client can be seen leaving. */
  streamed: boolean;
  idleTimer: NodeJS.Timeout | undefined;
  /** When its last request ended (or began): the least recent idle session is the first to go past the cap. */
  lastActive: number;
}

/**
 * How long a session whose client held an event stream may go without any
 * open request before it counts as gone. HTTP has no disconnect: an agent
 * killed without DELETE is noticed when its stream drops and never returns
 * (SDK clients reconnect their stream within seconds).
 */
export const DEFAULT_ABANDON_MS = 30_000;

/**
 * How long a session that never held an event stream may go without a
 * request before it expires. Such clients (POST-only) cannot be seen leaving,
 * and 5000 of them once held 236 MiB for good; one this quiet for so long
 * has almost surely gone, and if not, its next request is told to reconnect.
 */
export const DEFAULT_IDLE_MS = 30 * 60_000;

/** MCP sessions kept at once; past it the least recently active idle one is closed. */
export const MAX_MCP_SESSIONS = 256;

export interface McpEndpointLimits {
  abandonMs?: number;
  idleMs?: number;
  /** How long a call may run before its answer is committed to an event stream (mcp-response.ts). */
  streamAfterMs?: number;
  maxSessions?: number;
  /**
   * Chat bindings: a connection presenting one (the `ptydeck mcp` a chat's
   * agent started) speaks for that chat. Without it such a connection is refused.
   */
  bindings?: ChatBindings;
  /** Whether a bound connection comes from its chat's agent. Default: asks Linux /proc. */
  chatPeers?: ChatPeerCheck;
}

/** What a connection with a revoked or unknown binding is told. */
const BINDING_REFUSED =
  "Forbidden: this MCP server was started for a ptydeck chat that has closed (or for another ptydeck), so its chat binding is not valid. Start a new chat in ptydeck's panel.";

/** What a connection presenting a valid binding from outside its chat's agent is told. */
const BINDING_FOREIGN =
  "Forbidden: this chat binding is only valid from the processes of the chat's own agent (the ptydeck MCP server it started); this connection comes from another process.";

/**
 * MCP over Streamable HTTP at /mcp, stateful: each initialize opens an MCP
 * session with its own McpServer (so its own owner identity), found again by
 * the Mcp-Session-Id header. Authentication and Host/Origin checks happen in
 * the caller before a request reaches this class.
 */
export class McpHttpEndpoint {
  private readonly sessions = new Map<string, McpSession>();
  private closed = false;

  private readonly abandonMs: number;
  private readonly idleMs: number;
  private readonly streamAfterMs: number;
  private readonly maxSessions: number;
  private readonly bindings: ChatBindings | undefined;
  private readonly chatPeers: ChatPeerCheck;

  constructor(
    private readonly createServer: McpServerFactory,
    private readonly agents: AgentRegistry,
    limits: McpEndpointLimits = {},
  ) {
    this.abandonMs = limits.abandonMs ?? DEFAULT_ABANDON_MS;
    this.idleMs = limits.idleMs ?? DEFAULT_IDLE_MS;
    this.streamAfterMs = limits.streamAfterMs ?? SSE_COMMIT_MS;
    this.maxSessions = limits.maxSessions ?? MAX_MCP_SESSIONS;
    this.bindings = limits.bindings;
    this.chatPeers = limits.chatPeers ?? new ChatPeerCheck();
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Checked on every request, so closing the chat cuts off a connection already open.
    const presented = headerValue(req, CHAT_BINDING_HEADER);
    const binding = presented === undefined ? undefined : this.bindings?.resolve(presented);
    if (presented !== undefined && !binding) return jsonRpcError(res, 403, -32001, BINDING_REFUSED);
    if (binding && !this.chatPeers.fromAgent(req.socket, binding.agentPid)) return jsonRpcError(res, 403, -32001, BINDING_FOREIGN);
    const sessionId = headerValue(req, 'mcp-session-id');
    const session = sessionId === undefined ? undefined : this.sessions.get(sessionId);
    if (sessionId !== undefined && !session) {
      return jsonRpcError(
        res,
        404,
        -32001,
        'Session not found: ptydeck restarted or this MCP session was closed, so this session is gone. Reconnect to start a new one.',
      );
    }
    // A session is bound for good to what it opened with: no header switching chats midway.
    if (session && session.boundTo !== binding?.owner) return jsonRpcError(res, 403, -32001, BINDING_REFUSED);
    if (session) this.track(session, req, res);
    if (req.method !== 'POST') {
      if (!session) return jsonRpcError(res, 400, -32000, 'Bad Request: no Mcp-Session-Id; start with an initialize POST');
      return handleMcpRequest(session.transport, req, res, undefined, this.streamAfterMs, session.quiet);
    }
    // Every POST body is read and judged here, not by the SDK: it answers JSON that is no JSON-RPC message with -32700.
    const body = await readJson(req, MAX_BODY_BYTES);
    if (!body.ok) return jsonRpcError(res, body.status, body.status === 413 ? -32000 : -32700, body.message);
    const frame = judgeFrame(body.value, { batches: true });
    if (frame.kind === 'error') return respondJson(res, 400, frame.error);
    if (session) {
      // A malformed notification is not answered (JSON-RPC), but HTTP must still say the POST was taken.
      if (frame.kind === 'drop') return respondJson(res, 202, undefined);
      const taken = session.quiet.inUse(body.value);
      if (taken !== undefined) return respondJson(res, 400, errorResponse(taken, ErrorCode.InvalidRequest, `Invalid Request: id ${JSON.stringify(taken)} belongs to a request still running; give each request in flight an id of its own`));
      return handleMcpRequest(session.transport, req, res, body.value, this.streamAfterMs, session.quiet);
    }
    const first = frame.kind === 'messages' && frame.messages.length === 1 ? frame.messages[0]! : undefined;
    if (first === undefined || !isJSONRPCRequest(first) || first.method !== 'initialize') {
      return jsonRpcError(res, 400, -32000, 'Bad Request: no Mcp-Session-Id; the first request must be initialize');
    }
    // Without a session nothing connected would answer a bad initialize: say which param is wrong here.
    const refusal = checkParams(first);
    if (refusal) return respondJson(res, 400, refusal);
    const agentKey = headerValue(req, AGENT_KEY_HEADER);
    if (agentKey !== undefined && !isAgentKey(agentKey)) {
      return jsonRpcError(res, 400, -32000, `Bad Request: ${AGENT_KEY_HEADER} must be 43 to 128 base64url characters (32 random bytes or more); leave it out for a new identity`);
    }
    const sandbox = headerValue(req, SANDBOX_HEADER);
    if (sandbox !== undefined && !isSandboxProfile(sandbox)) {
      return jsonRpcError(res, 400, -32000, `Bad Request: ${SANDBOX_HEADER} must be one of ${SANDBOX_PROFILES.join(', ')}`);
    }
    if (this.closed) return jsonRpcError(res, 503, -32000, 'ptydeck is shutting down');
    this.makeRoom();
    const opened = this.open(headerValue(req, BRIDGE_HEADER) === 'stdio' ? 'stdio' : 'http', binding, clientCwdOf(req), agentKey, sandbox);
    this.track(opened, req, res);
    await handleMcpRequest(opened.transport, req, res, body.value, this.streamAfterMs, opened.quiet);
  }

  /** Agents connected right now. */
  get size(): number {
    return this.sessions.size;
  }

  /**
   * `ptydeck stop` is stopping the host: each `ptydeck mcp` hears it on its
   * event stream (written before close() ends the streams, so it arrives
   * first) and starts no new host by itself. Answers how many agents were
   * connected, chats' own connections aside (a chat is counted as a chat).
   */
  announceStop(): number {
    const agents = new Set<string>();
    for (const session of this.sessions.values()) {
      if (session.boundTo === undefined) agents.add(session.connectionId);
      if (session.kind !== 'stdio') continue;
      session.transport.send({ jsonrpc: '2.0', method: HOST_STOPPED_NOTIFICATION }).catch((error: unknown) => {
        reportError(error, `telling MCP session ${session.connectionId} that ptydeck is stopping failed`);
      });
    }
    return agents.size;
  }

  async close(): Promise<void> {
    this.closed = true;
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.allSettled(sessions.map((s) => s.server.close()));
  }

  /**
   * Counts the request as open until its response ends; when none is left,
   * arms the timer that ends the session: soon for a client whose event
   * stream dropped, after a long quiet for one that never held a stream.
   */
  private track(session: McpSession, req: IncomingMessage, res: ServerResponse): void {
    session.open += 1;
    session.lastActive = Date.now();
    if (req.method === 'GET') session.streamed = true;
    clearTimeout(session.idleTimer);
    session.idleTimer = undefined;
    res.once('close', () => {
      session.open -= 1;
      session.lastActive = Date.now();
      if (session.open > 0 || this.closed) return;
      session.idleTimer = setTimeout(() => this.expire(session), session.streamed ? this.abandonMs : this.idleMs);
      session.idleTimer.unref();
    });
  }

  /** Past the cap, the least recently active session with no request open goes. */
  private makeRoom(): void {
    if (this.sessions.size < this.maxSessions) return;
    let oldest: McpSession | undefined;
    for (const session of this.sessions.values()) {
      if (session.open === 0 && (!oldest || session.lastActive < oldest.lastActive)) oldest = session;
    }
    if (oldest) this.expire(oldest);
  }

  private expire(session: McpSession): void {
    session.server.close().catch((error: unknown) => reportError(error, `closing idle MCP session ${session.connectionId} failed`));
  }

  private open(kind: 'http' | 'stdio', binding?: ChatBinding, cwd?: string, agentKey?: string, sandbox?: SandboxProfile): McpSession {
    // A bound connection is its chat: its sessions get the chat's owner id, and the fence is drawn around the chat.
    // Else a bridge's key names it, the same on every host it joins; a plain client is a new owner.
    const connectionId = binding?.owner ?? agentOwnerId(agentKey);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => {
        this.sessions.set(sid, session);
      },
    });
    const server = this.createServer({
      id: connectionId,
      transport: kind,
      ...(binding ? { ownerName: binding.agentName, cwd: binding.cwd } : cwd ? { cwd } : {}),
      ...(sandbox && !binding ? { sandbox } : {}),
      onInitialized: (client) =>
        this.agents.add({
          id: connectionId,
          name: binding?.agentName ?? client.name,
          version: client.version,
          transport: kind,
          connectedAt: Date.now(),
        }),
    });
    const session: McpSession = { transport, quiet: new QuietCalls(transport), server, connectionId, kind, boundTo: binding?.owner, open: 0, streamed: false, idleTimer: undefined, lastActive: Date.now() };
    transport.onclose = () => {
      session.quiet.close();
      clearTimeout(session.idleTimer);
      const sid = transport.sessionId;
      if (sid !== undefined) this.sessions.delete(sid);
      // A chat's agent may hold more than one connection under its chat's id: it leaves with the last.
      if (![...this.sessions.values()].some((other) => other.connectionId === connectionId)) this.agents.remove(connectionId);
    };
    // connect() only wires callbacks and starts a no-op; it settles synchronously enough for the first request.
    connectChecked(server, transport).catch((error: unknown) => transport.onerror?.(error instanceof Error ? error : new Error(String(error))));
    return session;
  }
}

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

type BodyResult = { ok: true; value: unknown } | { ok: false; status: 400 | 413; message: string };

function readJson(req: IncomingMessage, limit: number): Promise<BodyResult> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (result: BodyResult) => {
      if (done) return;
      done = true;
      resolve(result);
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        finish({ ok: false, status: 413, message: `request body over ${limit} bytes` });
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      try {
        finish({ ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      } catch {
        finish({ ok: false, status: 400, message: 'Parse error: request body is not JSON' });
      }
    });
    req.on('error', () => finish({ ok: false, status: 400, message: 'request body could not be read' }));
  });
}

export function jsonRpcError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
  respondJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null }, headers);
}

/** A JSON body (none when `body` is undefined), unless a response already started. */
function respondJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) return void res.end();
  if (body === undefined) {
    res.writeHead(status, headers);
    return void res.end();
  }
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
