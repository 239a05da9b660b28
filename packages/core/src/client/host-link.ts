// `ptydeck mcp`'s link to its host, noticing at once when the host dies.
import { randomUUID } from 'node:crypto';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { isJSONRPCNotification, isJSONRPCResultResponse, type JSONRPCMessage, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { MCP_PATH } from '@ptydeck/contract';
import { HOST_STOPPED_NOTIFICATION } from '../common/stop-protocol.js';
import { isProcessAlive } from '../common/process-identity.js';
import { proveHost } from './ensure-host.js';
import { bounded } from '../common/bounded.js';

/** A host to join: where it listens, the agent token, and its pid (to notice at once when it dies). */
export interface HostTarget {
  url: string;
  token: string;
  pid: number;
}

export interface HostLinkHandlers {
  onmessage(message: JSONRPCMessage): void;
  /** The host is gone (exited, stopped, or no longer this host); called at most once. */
  onlost(reason: string): void;
  log(line: string): void;
}

/** How often the host's pid is looked at: a killed host is noticed well within the 2 s an agent may wait. */
const WATCH_MS = 250;
const INITIALIZE_MS = 10_000;

/**
 * One MCP session with one ptydeck host over Streamable HTTP, for the stdio
 * bridge. Frames pass through untouched; the link also watches the host's pid,
 * because a killed host leaves requests in flight that no answer will ever end.
 */
export class HostLink {
  private readonly http: StreamableHTTPClientTransport;
  private readonly watchdog: NodeJS.Timeout;
  /** Requests the link sends on its own behalf (a re-initialize), by id. */
  private readonly own = new Map<string, (message: JSONRPCMessage) => void>();
  private lost = false;
  private stoppedByStop = false;

  constructor(
    readonly target: HostTarget,
    headers: Record<string, string>,
    private readonly handlers: HostLinkHandlers,
  ) {
    this.http = new StreamableHTTPClientTransport(new URL(MCP_PATH, target.url), {
      requestInit: { headers: { Authorization: `Bearer ${target.token}`, ...headers } },
    });
    this.http.onmessage = (message) => {
      // Whatever a lost host still sends (an answer to a request already answered for it) is not passed on.
      if (this.lost) return;
      if (isJSONRPCNotification(message) && message.method === HOST_STOPPED_NOTIFICATION) {
        this.stoppedByStop = true;
        return this.lose('stopped (`ptydeck stop`, or SIGTERM or SIGINT to it)');
      }
      const answered = 'id' in message && message.id !== undefined ? this.own.get(String(message.id)) : undefined;
      if (answered) answered(message);
      else handlers.onmessage(message);
    };
    this.http.onerror = (error) => handlers.log(`ptydeck mcp: ${error.message}`);
    this.watchdog = setInterval(() => {
      if (!isProcessAlive(target.pid)) this.lose(`pid ${target.pid} exited`);
    }, WATCH_MS);
    this.watchdog.unref();
  }

  /** Whether the host said it was stopped (`ptydeck stop`, SIGTERM, SIGINT), not killed. */
  get stopped(): boolean {
    return this.stoppedByStop;
  }

  start(): Promise<void> {
    return this.http.start();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.http.send(message);
  }

  /** Later requests carry the protocol version the host negotiated. */
  useProtocolVersion(result: unknown): void {
    const version = (result as { protocolVersion?: unknown } | undefined)?.protocolVersion;
    if (typeof version === 'string') this.http.setProtocolVersion(version);
  }

  /** Opens the MCP session as the agent once did, answering nothing to the agent. */
  async initialize(request: JSONRPCRequest): Promise<void> {
    const id = `ptydeck-bridge-${randomUUID()}`;
    const answer = new Promise<JSONRPCMessage>((resolve, reject) => {
      this.own.set(id, resolve);
      setTimeout(() => reject(new Error('the new host did not answer initialize')), INITIALIZE_MS).unref();
    });
    try {
      await this.send({ ...request, id });
      const message = await answer;
      if (!isJSONRPCResultResponse(message)) throw new Error(`the new host refused initialize: ${JSON.stringify(message)}`);
      this.useProtocolVersion(message.result);
    } finally {
      this.own.delete(id);
    }
  }

  /**
   * After a failed send: whether the host is gone (rather than the request
   * refused). A host that restarted on the same port no longer knows the
   * session (404); a dead or silent one fails its proof.
   */
  async isGone(reason: string): Promise<boolean> {
    if (this.lost) return true;
    return /\bHTTP 404\b/.test(reason) || !isProcessAlive(this.target.pid) || (await proveHost(this.target)) !== true;
  }

  /** Marks the host gone, once, and stops using it. */
  lose(reason: string): void {
    if (this.lost) return;
    this.lost = true;
    this.handlers.onlost(reason);
    void this.close(false);
  }

  /** Stops the link; `endSession` also ends the MCP session in the host (its terminals stay there). */
  async close(endSession: boolean): Promise<void> {
    clearInterval(this.watchdog);
    if (endSession && !this.lost) await bounded(this.http.terminateSession(), 2000);
    await this.http.close().catch(() => {});
  }
}
