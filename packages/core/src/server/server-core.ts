import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import type { WebSocketServer } from 'ws';
import { MCP_PATH, PANEL_ACCESS_PATH, PANEL_SUBPROTOCOL, PANEL_WS_PATH, TOKEN_SUBPROTOCOL_PREFIX } from '@ptydeck/contract';
import type { PtyService } from '../pty/types.js';
import { AgentRegistry } from './agent-registry.js';
import {
  bearerToken,
  cookieValues,
  generateSecret,
  offeredSubprotocols,
  RequestGuard,
  secretsEqual,
  SESSION_COOKIE,
  TicketBook,
} from './auth.js';
import { removeDiscovery, resolveStateDir, writeDiscovery } from './discovery.js';
import { jsonRpcError, McpHttpEndpoint, type McpServerFactory } from './mcp-endpoint.js';
import { PanelConnection } from './panel-connection.js';
import { SessionMirrors } from './session-mirrors.js';
import { defaultAppDir, securityHeaders, StaticFiles } from './static-files.js';
import { mcpLaunchCommand } from './mcp-launch.js';
import { ConnectionBounds, HTTP_SERVER_TIMEOUTS, type ConnectionBoundsOptions } from './connection-bounds.js';

/** Largest panel frame: a 1 Mi-character paste, JSON-escaped, fits with room. */
const MAX_PANEL_FRAME_BYTES = 8 * 1024 * 1024;
const DEFAULT_TICKET_TTL_MS = 5 * 60 * 1000;
/** What an agent holding a session from an earlier launch is told. */
const STALE_MCP_SESSION_MESSAGE =
  'Session not found: ptydeck restarted; this session is gone (it belongs to an earlier launch, whose token is no longer valid). Reconnect with the token in server.json to start a new session.';
/** POST with the bearer token: answers {url} with a fresh one-time panel link. */
export const TICKET_PATH = '/ticket';

export interface ServerCoreOptions {
  service: PtyService;
  /** Builds the McpServer for one MCP connection; without it /mcp answers 503. */
  createMcpServer?: McpServerFactory;
  /** Interface to bind. Default 127.0.0.1; anything else only when asked for explicitly. */
  host?: string;
  /** TCP port; 0 (the default) picks a free one. */
  port?: number;
  /** Where server.json goes; default $PTYDECK_STATE_DIR, $XDG_STATE_HOME/ptydeck, ~/.local/state/ptydeck. */
  stateDir?: string;
  /** Write the discovery file. Default true. */
  writeDiscovery?: boolean;
  /** The built renderer; default packages/app/dist. */
  appDir?: string;
  /** Lifetime of a panelUrl() ticket. Default 5 minutes. */
  ticketTtlMs?: number;
  /** How long an MCP session whose event stream dropped may stay silent before its agent counts as gone. Default 30 s. */
  mcpAbandonMs?: number;
  /** Bounds on connections without credentials; defaults in connection-bounds.ts. */
  connectionBounds?: ConnectionBoundsOptions;
}

export interface ServerCore {
  url: string;
  port: number;
  host: string;
  token: string;
  instance: string;
  agents: AgentRegistry;
  /** Path of the discovery file written, if any. */
  discoveryFile: string | undefined;
  panelUrl(): string;
  close(): Promise<void>;
}

/**
 * The HTTP side of the local server: routing, the token, Host/Origin checks,
 * tickets, static files, /mcp and the panel WebSocket. It owns no PTYs; the
 * caller hands it a service and disposes that.
 */
export async function startServerCore(options: ServerCoreOptions): Promise<ServerCore> {
  const host = options.host ?? '127.0.0.1';
  const token = generateSecret();
  // The cookie carries its own secret so the token itself never lands in a browser.
  const cookieSecret = generateSecret();
  const instance = randomUUID();
  const mcpLaunch = mcpLaunchCommand();
  const tickets = new TicketBook(options.ticketTtlMs ?? DEFAULT_TICKET_TTL_MS);
  const agents = new AgentRegistry();
  const mirrors = new SessionMirrors(options.service);
  const files = new StaticFiles(options.appDir ?? defaultAppDir());
  const mcp = options.createMcpServer ? new McpHttpEndpoint(options.createMcpServer, agents, options.mcpAbandonMs) : undefined;
  const panels = new Set<PanelConnection>();
  let guard: RequestGuard | undefined;

  // Made on the first panel upgrade: an agent-only server never loads ws (15 to 40 ms of its start).
  let wss: WebSocketServer | undefined;
  const panelSockets = (): WebSocketServer =>
    (wss ??= new (loadWs().WebSocketServer)({
      noServer: true,
      maxPayload: MAX_PANEL_FRAME_BYTES,
      perMessageDeflate: false,
      // Invalid UTF-8 then fails JSON parsing and gets an error reply, instead of ws closing the panel.
      skipUTF8Validation: true,
      // Answer with a neutral protocol when offered so the token is not echoed back.
      handleProtocols: (protocols) => {
        if (protocols.has(PANEL_SUBPROTOCOL)) return PANEL_SUBPROTOCOL;
        for (const p of protocols) if (p.startsWith(TOKEN_SUBPROTOCOL_PREFIX)) return p;
        return false;
      },
    }));

  const hasPanelAuth = (req: IncomingMessage): boolean => {
    let ok = false;
    // Check every candidate without stopping early, so timing says nothing about which matched.
    for (const value of cookieValues(req.headers, SESSION_COOKIE)) ok = secretsEqual(value, cookieSecret) || ok;
    for (const p of offeredSubprotocols(req.headers)) {
      if (p.startsWith(TOKEN_SUBPROTOCOL_PREFIX)) ok = secretsEqual(p.slice(TOKEN_SUBPROTOCOL_PREFIX.length), token) || ok;
    }
    return ok;
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    const verdict = guard!.checkHostAndOrigin(req.headers);
    if (!verdict.ok) return plain(res, verdict.status, `${verdict.reason}\n`);
    const url = new URL(req.url ?? '/', 'http://placeholder');
    const hostHeader = RequestGuard.hostOf(req.headers);
    if (url.pathname === MCP_PATH) {
      const presented = bearerToken(req.headers);
      if (presented === undefined || !secretsEqual(presented, token)) {
        // The token changes with every launch, so an agent still holding a session from
        // before a restart presents the old one: tell it what happened instead of a bare 401
        // it cannot act on. The session id is not looked up, so this reveals nothing.
        if (req.headers['mcp-session-id'] !== undefined) return jsonRpcError(res, 404, -32001, STALE_MCP_SESSION_MESSAGE);
        return jsonRpcError(res, 401, -32001, 'Unauthorized: send Authorization: Bearer <token> (see server.json)', {
          'WWW-Authenticate': 'Bearer realm="ptydeck"',
        });
      }
      bounds.trust(req.socket);
      if (!mcp) return jsonRpcError(res, 503, -32000, 'MCP is not available on this server');
      mcp.handle(req, res).catch((error: unknown) => {
        jsonRpcError(res, 500, -32603, `Internal error: ${error instanceof Error ? error.message : String(error)}`);
      });
      return;
    }
    if (url.pathname === TICKET_PATH) {
      // A fresh one-time panel link for `ptydeck url`: only for a holder of the token, and never cacheable.
      const presented = bearerToken(req.headers);
      if (presented === undefined || !secretsEqual(presented, token)) return plain(res, 401, 'Unauthorized\n');
      bounds.trust(req.socket);
      if (req.method !== 'POST') return plain(res, 405, 'Use POST\n');
      res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
      res.end(JSON.stringify({ url: panelUrl() }));
      return;
    }
    if (url.pathname === PANEL_ACCESS_PATH) {
      // Says only whether this request may open the panel socket; never cacheable.
      res.writeHead(hasPanelAuth(req) ? 204 : 401, { ...securityHeaders(hostHeader), 'Cache-Control': 'no-store' });
      res.end();
      return;
    }
    // The rest is public (the renderer's files, the ticket exchange); a browser holding the panel cookie is trusted.
    if (hasPanelAuth(req)) bounds.trust(req.socket);
    if (url.pathname === '/' && url.searchParams.has('ticket')) {
      return exchangeTicket(res, url.searchParams.get('ticket') ?? '', hostHeader);
    }
    files.serve(req, res, url.pathname, hostHeader);
  };

  const exchangeTicket = (res: ServerResponse, ticket: string, hostHeader: string): void => {
    const headers = securityHeaders(hostHeader);
    if (!tickets.redeem(ticket)) {
      res.writeHead(403, { ...headers, 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
      res.end('This ptydeck link has expired or was already used. Run `ptydeck url` for a new one.\n');
      return;
    }
    // Redirect to / so the ticket leaves the address bar and history.
    res.writeHead(303, {
      ...headers,
      'Set-Cookie': `${SESSION_COOKIE}=${cookieSecret}; HttpOnly; SameSite=Strict; Path=/`,
      Location: '/',
      'Cache-Control': 'no-store',
    });
    res.end();
  };

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on('error', () => socket.destroy());
    const verdict = guard!.checkHostAndOrigin(req.headers);
    if (!verdict.ok) return refuseUpgrade(socket, verdict.status, verdict.reason);
    const url = new URL(req.url ?? '/', 'http://placeholder');
    if (url.pathname !== PANEL_WS_PATH) return refuseUpgrade(socket, 404, 'Not found');
    if (!hasPanelAuth(req)) return refuseUpgrade(socket, 401, 'Unauthorized');
    bounds.trust(req.socket);
    panelSockets().handleUpgrade(req, socket, head, (ws) => {
      const panel = new PanelConnection(ws, { service: options.service, agents, mirrors, instance, mcpLaunch, socket });
      panels.add(panel);
      ws.on('close', () => panels.delete(panel));
    });
  };

  const server = createServer(HTTP_SERVER_TIMEOUTS, onRequest);
  const bounds = new ConnectionBounds(server, options.connectionBounds);
  server.on('upgrade', onUpgrade);
  server.on('clientError', (_error, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('server has no TCP address');
  const port = address.port;
  guard = new RequestGuard(port, host);
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  const url = `http://${urlHost}:${port}`;

  const stateDir = options.stateDir ?? resolveStateDir();
  let discoveryFile: string | undefined;
  if (options.writeDiscovery ?? true) {
    try {
      discoveryFile = writeDiscovery({ url, token, pid: process.pid, instance }, stateDir);
    } catch (error) {
      server.close();
      bounds.dispose();
      mirrors.dispose();
      throw error;
    }
  }

  function panelUrl(): string {
    return `${url}/?ticket=${tickets.issue()}`;
  }

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      if (discoveryFile) removeDiscovery(instance, stateDir);
      for (const client of wss?.clients ?? []) client.terminate();
      for (const panel of panels) panel.dispose();
      await mcp?.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      bounds.dispose();
      wss?.close();
      mirrors.dispose();
    })());

  return {
    url,
    port,
    host,
    token,
    instance,
    agents,
    discoveryFile,
    panelUrl,
    close,
  };
}

/** ws, required rather than imported so that it loads with the first panel, not at start. */
function loadWs(): typeof import('ws') {
  return createRequire(import.meta.url)('ws') as typeof import('ws');
}

function plain(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
  res.end(body);
}

const STATUS_TEXT: Record<number, string> = { 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found' };

function refuseUpgrade(socket: Duplex, status: number, reason: string): void {
  const body = `${reason}\n`;
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_TEXT[status] ?? 'Error'}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
