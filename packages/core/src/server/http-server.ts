// The local server's HTTP side: routing, credentials, Host/Origin checks, tickets, /mcp and the panel socket.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import type { WebSocketServer } from 'ws';
import type { Socket } from 'node:net';
import {
  ASKER_PID_HEADER,
  HOST_PROTOCOL_VERSION,
  MCP_PATH,
  PANEL_ACCESS_PATH,
  PANEL_WS_PATH,
  PANEL_ATTACH_PARAM,
  PANEL_ATTACHED_HEADER,
  matchSession,
  SNAPSHOT_PATH,
  TICKET_EXCHANGE_PATH,
  TICKET_PATH,
  TICKET_FRAGMENT_KEY,
  TOKEN_SUBPROTOCOL_PREFIX,
  type HostFacts,
} from '@ptydeck/contract';
import type { PtyService } from '../pty/types.js';
import type { ScreenService } from '../screen/index.js';
import { AgentRegistry } from './agent-registry.js';
import { bearerToken, generateSecret, offeredSubprotocols, RequestGuard, secretMatcher, TicketBook } from './auth.js';
import { removeDiscovery, resolveStateDir, writeDiscovery, type DiscoveryRecord } from '../common/discovery.js';
import { jsonRpcError, McpHttpEndpoint, type McpServerFactory } from './mcp-endpoint.js';
import { PanelConnection, snapshotMessage, type PanelConnectionDeps } from './panel-connection.js';
import { newPanelSocketServer } from './panel-socket-server.js';
import type { ChatBindings } from '../chats/chat-bindings.js';
import type { ChatHost } from '../chats/chat-host.js';
import { defaultAppDir, securityHeaders, StaticFiles } from './static-files.js';
import { claimedPid, json, parseTicket, plain, readBody, refuseUpgrade } from './http-replies.js';
import { mcpLaunchCommand } from '../common/mcp-launch.js';
import { isChallenge, PROOF_HEADER, PROOF_PATH, proofOf } from '../common/server-proof.js';
import { ConnectionBounds, HTTP_SERVER_TIMEOUTS, type ConnectionBoundsOptions } from './connection-bounds.js';
import { offerStatTable, StatHandles } from '../proc/proc-fs.js';
import { judgePeerFromProc, lookEarlyFromProc, type EarlyLook, type EarlyLooker, type PeerJudge, type PeerVerdict } from '../common/peer-process.js';
import type { ProcessWatch, SessionFacts } from '../facts/index.js';
import { packageVersion, PROCESS_STARTED_AT } from '../common/package-version.js';
import type { OpenRemoteHosts } from '../remote/remote-hosts.js';

/**
 * A route this server does not know (the host's /stop), tried after its
 * own and before static files, with the Host/Origin checks already passed.
 * `judge` names the asking process as /ticket does. Answers whether it handled the request.
 */
export type ServerRoute = (req: IncomingMessage, res: ServerResponse, asker: { pathname: string; judge(): PeerVerdict }) => boolean;

const DEFAULT_TICKET_TTL_MS = 5 * 60 * 1000;
/** What an agent holding a session from an earlier launch is told. */
const STALE_MCP_SESSION_MESSAGE =
  'Session not found: ptydeck restarted; this session is gone (it belongs to an earlier launch, whose token is no longer valid). Reconnect with the token in server.json to start a new session.';
/** Largest ticket exchange body: a ticket is 43 characters. */
const MAX_EXCHANGE_BODY_BYTES = 1024;

export interface HttpServerOptions {
  service: PtyService;
  /*
   * The services below are the host's (host/local-server.ts builds them, the one composition root),
   * handed in and disposed by the caller: the server builds none of its own, so a session is parsed
   * once and its facts kept once.
   */
  /** The service's screens, for viewers' resyncs: the ones the agent tool reads. */
  screens: ScreenService;
  /** What is learned of the sessions (prompts, shell state, ports), which the panels are shown with them: the record the agent tool tells. */
  facts: SessionFacts;
  /** How the sessions' ports and leftover processes are watched: while a panel is connected, and for a snapshot. */
  processes: ProcessWatch;
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
  /** How long an MCP session that never held an event stream may stay silent before it expires. Default 30 min. */
  mcpIdleMs?: number;
  /** How long an MCP call may run before its answer is committed to an event stream. Default SSE_COMMIT_MS (1 s). */
  mcpStreamAfterMs?: number;
  /** MCP sessions kept at once; past it the least recently active idle one is closed. Default 256. */
  maxMcpSessions?: number;
  /** Bounds on connections without credentials; defaults in connection-bounds.ts. */
  connectionBounds?: ConnectionBoundsOptions;
  /**
   * Where this system cannot name the process asking /ticket for a link (no
   * /proc, e.g. macOS), the server gives a fresh link to this instead of the
   * asker and tells the asker the place it returns: `ptydeck serve` prints the
   * link on its own terminal, Electron focuses its window. Without it such
   * requests are refused.
   */
  presentPanelLink?: (url: string) => string;
  /** Names the process at the other end of a /ticket request. Default: from Linux /proc. */
  judgePeer?: PeerJudge;
  /**
   * What is learnt of a connection as it is accepted, handed to judgePeer with its first request. Default:
   * from Linux /proc where judgePeer is the default too; none where a caller judges its own way.
   */
  lookEarly?: EarlyLooker;
  /** Chats with ACP agents, for the panels (and their agents' pids, for /ticket); the caller owns and disposes it. */
  chats?: PanelConnectionDeps['chats'] & Pick<ChatHost, 'onAgentProcess'>;
  /** Every session's commands, for the panel's timeline and recordings. */
  timeline?: PanelConnectionDeps['timeline'];
  /** What a developer's new tab runs: bash with ptydeck's marks (developer-shell.ts), or their login shell. */
  developerShell?: PanelConnectionDeps['developerShell'];
  /** Chat bindings an MCP connection may present (see McpEndpointLimits.bindings). */
  chatBindings?: ChatBindings;
  /** One more route, e.g. the host's /stop. */
  route?: ServerRoute;
  /** The remote hosts a panel is shown when it asks (remote/remote-hosts.ts); without it, none. */
  remotes?: OpenRemoteHosts;
}

export interface HttpServer {
  url: string;
  port: number;
  host: string;
  /** Agent scope, written to server.json: /mcp only, where each connection sees its own sessions. */
  agentToken: string;
  /**
   * Panel scope: every session, input to the developer's tabs. Lives only in
   * this process's memory; a browser gets it by trading a one-time ticket.
   */
  panelToken: string;
  instance: string;
  agents: AgentRegistry;
  /** Path of the discovery file written, if any. */
  discoveryFile: string | undefined;
  /** The record written there, if any: what a host holding host.lock writes back when a client asks (host/record-route.ts). */
  discoveryRecord: DiscoveryRecord | undefined;
  /** Panel sockets open right now. */
  panelCount(): number;
  panelUrl(): string;
  /** Tells the agents' `ptydeck mcp` that `ptydeck stop` is stopping the host; answers how many agents were connected. */
  announceStop(): number;
  close(): Promise<void>;
}

/**
 * The HTTP side of the local server: routing, the token, Host/Origin checks,
 * tickets, static files, /mcp and the panel WebSocket. It owns no PTYs and
 * builds no service: the caller hands it the service, screens, facts and
 * process watch, and disposes them.
 */
export async function startHttpServer(options: HttpServerOptions): Promise<HttpServer> {
  const host = options.host ?? '127.0.0.1';
  // Two scopes, two secrets: what is written to disk must not open the panel.
  const agentToken = generateSecret();
  const panelToken = generateSecret();
  const isAgentToken = secretMatcher(agentToken);
  const isPanelToken = secretMatcher(panelToken);
  const judgePeer = options.judgePeer ?? judgePeerFromProc;
  const lookEarly = options.lookEarly ?? (options.judgePeer ? undefined : lookEarlyFromProc);
  // Each connection's early look until its first request is judged: a request after it on the same connection
  // (keep-alive) is judged on a look of its own.
  const earlyLooks = new WeakMap<Socket, EarlyLook>();
  // Every process's stat file, kept open from one early look to the next (half the look's cost: bench figure 12).
  const statHandles = lookEarly ? new StatHandles() : undefined;
  // Every session's pid and every chat agent's, kept after it exits or is removed: its pid is
  // also its POSIX session id, which its leftover background processes still carry.
  // A display-only session has pid 0: no process, so nothing to record.
  const sessionPids = new Set<number>(options.service.list().flatMap((session) => (session.pid > 0 ? [session.pid] : [])));
  const stopRecordingSessions = options.service.on('pty.created', (event) => {
    if (event.info.pid > 0) sessionPids.add(event.info.pid);
  });
  const stopRecordingAgents = options.chats?.onAgentProcess((pid) => sessionPids.add(pid));
  const stopRecordingPids = () => {
    stopRecordingSessions();
    stopRecordingAgents?.();
  };
  const instance = randomUUID();
  const mcpLaunch = mcpLaunchCommand();
  const tickets = new TicketBook(options.ticketTtlMs ?? DEFAULT_TICKET_TTL_MS);
  const agents = new AgentRegistry();
  const { screens, facts, processes } = options;
  const files = new StaticFiles(options.appDir ?? defaultAppDir());
  const mcp = options.createMcpServer ? new McpHttpEndpoint(options.createMcpServer, agents, { abandonMs: options.mcpAbandonMs, idleMs: options.mcpIdleMs, streamAfterMs: options.mcpStreamAfterMs, maxSessions: options.maxMcpSessions, bindings: options.chatBindings }) : undefined;
  const panels = new Set<PanelConnection>();
  let guard: RequestGuard | undefined;

  /** What each panel handshake's 101 says beyond ws's own: the proof it asked for, the session it had attached. */
  const handshakeHeaders = new WeakMap<IncomingMessage, Record<string, string>>();
  // Made on the first panel upgrade (panel-socket-server.ts).
  let wss: WebSocketServer | undefined;
  const panelSockets = (): WebSocketServer => (wss ??= newPanelSocketServer((req) => handshakeHeaders.get(req)));

  const hasPanelAuth = (req: IncomingMessage): boolean => {
    let ok = false;
    // Check every candidate without stopping early, so timing says nothing about which matched.
    for (const p of offeredSubprotocols(req.headers)) {
      if (p.startsWith(TOKEN_SUBPROTOCOL_PREFIX)) ok = isPanelToken(p.slice(TOKEN_SUBPROTOCOL_PREFIX.length)) || ok;
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
      if (presented === undefined || !isAgentToken(presented)) {
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
    if (url.pathname === PROOF_PATH) {
      // For `ptydeck mcp`: proves this server knows the agent token without either side sending it.
      const challenge = url.searchParams.get('challenge');
      if (req.method !== 'GET' || !isChallenge(challenge)) return json(res, 400, { error: 'GET /proof?challenge=<64 hex digits>' });
      return json(res, 200, { proof: proofOf(agentToken, challenge) });
    }
    if (url.pathname === TICKET_PATH || url.pathname === SNAPSHOT_PATH) {
      // The proof asked in the same request (PROOF_HEADER), whatever the answer: it tells the client whom it asked.
      const challenge = url.searchParams.get('challenge');
      if (isChallenge(challenge)) res.setHeader(PROOF_HEADER, proofOf(agentToken, challenge));
      return url.pathname === TICKET_PATH ? mintTicket(req, res) : answerSnapshot(req, res);
    }
    if (url.pathname === TICKET_EXCHANGE_PATH) return exchangeTicket(req, res);
    if (url.pathname === PANEL_ACCESS_PATH) {
      // Only whether this page's panel token opens the panel socket (a browser hides why a handshake failed); never cacheable.
      const presented = bearerToken(req.headers);
      const allowed = presented !== undefined && isPanelToken(presented);
      res.writeHead(allowed ? 204 : 401, { ...securityHeaders(hostHeader), 'Cache-Control': 'no-store' });
      res.end();
      return;
    }
    if (options.route?.(req, res, { pathname: url.pathname, judge: () => judgeAsker(req) })) return;
    // Static files carry no secret: the page asks for credentials itself.
    files.serve(req, res, url.pathname, hostHeader);
  };

  /** The process asking, judged: the one the request names (ASKER_PID_HEADER) if it does, once the kernel confirms it holds the connection. */
  const judgeAsker = (req: IncomingMessage): PeerVerdict => {
    const early = earlyLooks.get(req.socket);
    earlyLooks.delete(req.socket);
    // The stat lines the look read as this connection was accepted stand for this turn's process watch look (`ls`).
    if (early?.table) offerStatTable(early.table);
    return judgePeer(req.socket, sessionPids, claimedPid(req.headers[ASKER_PID_HEADER]), early);
  };

  /**
   * A fresh link for `ptydeck url`. It presents no secret (anything it could read, a process
   * in an agent's shell could read too); the server asks the kernel who is calling instead.
   */
  const mintTicket = (req: IncomingMessage, res: ServerResponse): void => {
    if (req.method !== 'POST') return plain(res, 405, 'Use POST\n');
    // A browser sends Origin with every POST; a link is never for a web page, even our own.
    if (req.headers.origin !== undefined) return json(res, 403, { error: 'panel links are not handed to web pages' });
    const verdict = judgeAsker(req);
    if (verdict.kind === 'outside') return json(res, 200, { url: panelUrl() });
    if (verdict.kind === 'refused') {
      return json(res, 403, {
        error: `refused: ${verdict.reason}. A panel link is only given to a process outside every ptydeck session; run \`ptydeck url\` in a terminal of your own.`,
      });
    }
    if (!options.presentPanelLink) return json(res, 403, { error: `refused: cannot tell who is asking (${verdict.reason})` });
    return json(res, 202, { shownIn: options.presentPanelLink(panelUrl()) });
  };

  /**
   * The panel's snapshot for `ptydeck ls` and `ptydeck status`: read only, with no secret, and given only to a
   * process judged as /ticket judges one (outside every session, by the kernel's word), so such a process gets in
   * one request what a ticket, its exchange and a panel socket gave it, and never the panel's scope.
   */
  const answerSnapshot = (req: IncomingMessage, res: ServerResponse): void => {
    if (req.method !== 'POST') return plain(res, 405, 'Use POST\n');
    // A browser sends Origin with every POST; a GET it may send from any page without one.
    if (req.headers.origin !== undefined) return json(res, 403, { error: 'the session list is not handed to web pages' });
    const verdict = judgeAsker(req);
    if (verdict.kind === 'refused') {
      return json(res, 403, { error: `refused: ${verdict.reason}. The session list is only given to a process outside every ptydeck session.` });
    }
    if (verdict.kind === 'unknown') return json(res, 403, { error: `cannot tell who is asking (${verdict.reason})` });
    // As when a panel connects: a look at the sessions' ports taken now if one is due, so they are as they are now.
    const stopWatching = processes.watch();
    try {
      json(res, 200, snapshotMessage({ facts, agents, instance, mcpLaunch, host: hostFacts() }));
    } finally {
      stopWatching();
    }
  };

  /** The page trades a one-time ticket from its URL fragment for the panel token. */
  const exchangeTicket = (req: IncomingMessage, res: ServerResponse): void => {
    if (req.method !== 'POST') return plain(res, 405, 'Use POST\n');
    // The guard refused a foreign Origin; here one is required, so only a page of this origin trades.
    if (req.headers.origin === undefined) return json(res, 403, { error: 'Origin required' });
    if (!req.headers['content-type']?.toLowerCase().startsWith('application/json')) {
      return json(res, 415, { error: 'send {"ticket": ...} as application/json' });
    }
    readBody(req, MAX_EXCHANGE_BODY_BYTES)
      .then((body) => {
        const ticket = parseTicket(body);
        if (ticket === undefined || !tickets.redeem(ticket)) {
          return json(res, 403, { error: 'This ptydeck link has expired or was already used: each link works once, for 5 minutes.' });
        }
        json(res, 200, { token: panelToken });
      })
      .catch(() => json(res, 413, { error: 'request too large' }));
  };

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on('error', () => socket.destroy());
    const verdict = guard!.checkHostAndOrigin(req.headers);
    if (!verdict.ok) return refuseUpgrade(socket, verdict.status, verdict.reason);
    const url = new URL(req.url ?? '/', 'http://placeholder');
    if (url.pathname !== PANEL_WS_PATH) return refuseUpgrade(socket, 404, 'Not found');
    // The proof asked in the handshake (PROOF_HEADER), on its answer whatever it is, as /ticket does.
    const challenge = url.searchParams.get('challenge');
    const proof = isChallenge(challenge) ? proofOf(agentToken, challenge) : undefined;
    const proven: Record<string, string> = proof === undefined ? {} : { [PROOF_HEADER]: proof };
    if (!hasPanelAuth(req)) {
      // No token: a process that names itself (ASKER_PID_HEADER) is judged as /ticket judges it, and one outside every
      // session gets the socket /ticket's link would have opened, without the ticket and its exchange (`ptydeck attach`).
      if (req.headers[ASKER_PID_HEADER] === undefined) return refuseUpgrade(socket, 401, 'Unauthorized', proven);
      // A browser sends Origin with every handshake (and cannot set the header): the panel's page comes with its token.
      if (req.headers.origin !== undefined) return refuseUpgrade(socket, 403, 'the panel socket is opened by pid only outside web pages', proven);
      const verdict = judgeAsker(req);
      if (verdict.kind === 'refused') return refuseUpgrade(socket, 403, `refused: ${verdict.reason}. The panel socket is only opened by pid for a process outside every ptydeck session.`, proven);
      if (verdict.kind === 'unknown') return refuseUpgrade(socket, 403, `cannot tell who is asking (${verdict.reason})`, proven);
    }
    // The session the handshake names, attached as the socket opens (PANEL_ATTACH_PARAM: `ptydeck attach`'s resync without
    // the round trip of its `attach` message), chosen as the client chooses from the same list its snapshot sends.
    const target = url.searchParams.get(PANEL_ATTACH_PARAM);
    const match = target === null ? undefined : matchSession(facts.list(), target);
    const attach = match?.kind === 'found' ? match.info.id : undefined;
    const answered: Record<string, string> = { ...proven, ...(attach === undefined ? {} : { [PANEL_ATTACHED_HEADER]: attach }) };
    handshakeHeaders.set(req, answered);
    bounds.trust(req.socket);
    panelSockets().handleUpgrade(req, socket, head, (ws) => {
      const panel = new PanelConnection(ws, { service: options.service, facts, agents, screens, instance, mcpLaunch, host: hostFacts(), socket, chats: options.chats, processes, ...(options.timeline ? { timeline: options.timeline } : {}), remotes: options.remotes, ...(options.developerShell ? { developerShell: options.developerShell } : {}), ...(attach === undefined ? {} : { attach }) });
      panels.add(panel);
      ws.on('close', () => panels.delete(panel));
    });
  };

  const server = createServer(HTTP_SERVER_TIMEOUTS, onRequest);
  const bounds = new ConnectionBounds(server, options.connectionBounds);
  server.on('upgrade', onUpgrade);
  // Taken as the connection is accepted, while its client still writes the request: what a judgement of that request
  // needs that does not depend on the sender it names (peer-process.ts, EarlyLook).
  if (lookEarly) {
    server.on('connection', (socket: Socket) => {
      const early = lookEarly(socket, sessionPids, statHandles);
      if (early) earlyLooks.set(socket, early);
    });
  }
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
  guard = new RequestGuard(port, host, address.address);
  // The address it is bound to, not the name it was given (`--host localhost`): a client checks with the kernel
  // that the host listens where server.json says (client/host-check.ts), and a name is a resolver's answer.
  const urlAddress = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : address.address;
  const urlHost = urlAddress.includes(':') ? `[${urlAddress}]` : urlAddress;
  const url = `http://${urlHost}:${port}`;

  const stateDir = options.stateDir ?? resolveStateDir();
  let discoveryFile: string | undefined;
  const record: DiscoveryRecord = { url, token: agentToken, pid: process.pid, instance, protocol: HOST_PROTOCOL_VERSION };
  if (options.writeDiscovery ?? true) {
    try {
      discoveryFile = writeDiscovery(record, stateDir);
    } catch (error) {
      server.close();
      bounds.dispose();
      statHandles?.dispose();
      stopRecordingPids();
      throw error;
    }
  }

  function hostFacts(): HostFacts {
    return { pid: process.pid, version: packageVersion(), protocol: HOST_PROTOCOL_VERSION, startedAt: PROCESS_STARTED_AT, stateDir };
  }

  function panelUrl(): string {
    return `${url}/#${TICKET_FRAGMENT_KEY}=${tickets.issue()}`;
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
      statHandles?.dispose();
      wss?.close();
      stopRecordingPids();
    })());

  return {
    url,
    port,
    host,
    agentToken,
    panelToken,
    instance,
    agents,
    discoveryFile,
    discoveryRecord: discoveryFile === undefined ? undefined : record,
    panelCount: () => panels.size,
    panelUrl,
    announceStop: () => mcp?.announceStop() ?? 0,
    close,
  };
}
