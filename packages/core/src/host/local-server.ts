// The local server: a core's services (host-services.ts) served through http-server.ts, to panels and to agents over /mcp.
import type { Worker } from 'node:worker_threads';
import { mkdirSync } from 'node:fs';
import type { PtyService, PtyServiceOptions } from '../pty/types.js';
import { hostIdOf } from '../pty/session-labels.js';
import type { TerminalTool } from '../terminal-tool/index.js';
import type { Timeline } from '../timeline/index.js';
import type { ScreenService } from '../screen/index.js';
import type { AgentRegistry } from '../server/agent-registry.js';
import { startHttpServer, type HttpServerOptions } from '../server/http-server.js';
import type { ProcessWatchOptions, SessionFacts } from '../facts/index.js';
import type { ChatHost } from '../chats/chat-host.js';
import { orphanedChatProcesses } from '../chats/orphaned-agents.js';
import { resolveStateDir, type DiscoveryRecord } from '../common/discovery.js';
import type { SessionStore } from '../persist/session-store.js';
import { DeveloperShell } from '../server/developer-shell.js';
import { developerShellIntegration } from './host-config.js';
import { judgePeerFromProc, lookEarlyFromProc } from '../common/peer-process.js';
import { resolveConfigDir } from '../chats/agents-config.js';
import { remoteHostsOpener } from '../remote/remote-hosts.js';
import { buildHostServices } from './host-services.js';

/** The HTTP server's options (http-server.ts), with the PTY service optional and the MCP factory built in. */
export interface LocalServerOptions extends Omit<HttpServerOptions, 'service' | 'screens' | 'facts' | 'processes' | 'createMcpServer' | 'chats' | 'chatBindings'> {
  /** The PTY service to serve; without one the server creates its own and disposes it on close. */
  service?: PtyService;
  /** The sessions' screens; without them the server creates its own and disposes them on close. */
  screens?: ScreenService;
  /** How the sessions' ports and leftover processes are watched for the panels (tests shorten the interval). */
  processWatch?: ProcessWatchOptions;
  /** Bounds of the service the server creates (not of one passed in); defaults in pty/types.ts. */
  limits?: Pick<PtyServiceOptions, 'maxLiveSessions' | 'maxExitedSessions'>;
  /**
   * Where the screens the server creates parse: 'worker' (default, as shipped), or 'main': this
   * thread, lazily, as before the screen worker. 'main' exists for measurement (bench figure 5).
   */
  screenThread?: 'worker' | 'main';
  /**
   * Starts the screen worker instead of the shipped spawn: the bench's worker is the shipped one
   * plus a memory probe (bench/lib/screen-worker-probe.mjs). Exists for measurement (bench figure 5).
   */
  screenWorkerSpawn?: () => Worker;
  /** Where agents.json is read; default $PTYDECK_CONFIG_DIR, $XDG_CONFIG_HOME/ptydeck, ~/.config/ptydeck. */
  configDir?: string;
  /** A chat's working directory when the panel names none. Default process.cwd(). */
  launchDir?: string;
  /**
   * Base environment of chat agents' processes (and the PATH known agents are
   * looked for on), and the HOME and PATH agents' sandboxes are built from
   * (its keys hidden, its caches writable, bubblewrap looked for). Default the
   * developer's environment, as their tabs get it (server/developer-env.ts).
   */
  agentEnv?: Record<string, string | undefined>;
  /** Time between SIGTERM and SIGKILL when ending a chat's agent. Default 3000 ms. */
  agentKillGraceMs?: number;
  /**
   * Where sessions are kept across the host's death: what it holds is restored
   * before the server serves, then it records; close() flushes it (the caller
   * opened it, and disposes it). Without it nothing is kept.
   */
  sessionStore?: SessionStore;
  /**
   * Whether agents' shells may be sandboxed (sandbox/): each gets the profile
   * config.json or its client names, else `workspace` where bubblewrap works.
   * Default true; false runs every agent shell as the developer.
   */
  sandbox?: boolean;
}

export interface LocalServer {
  /** http://127.0.0.1:PORT */
  url: string;
  port: number;
  /** Agent scope: the bearer token for /mcp, also in server.json. Does not open the panel. Never log it. */
  agentToken: string;
  /**
   * Panel scope: the panel subprotocol's token, every session and the developer's tabs.
   * Only in this process's memory (Electron hands it to its own renderer). Never log it.
   */
  panelToken: string;
  /** Changes on every launch; the panel snapshot carries it too. */
  instance: string;
  /** What server.json was written with, if it was. */
  discoveryRecord: DiscoveryRecord | undefined;
  service: PtyService;
  /** The sessions' screens, read by the tool and the panels' resyncs. */
  screens: ScreenService;
  /** The sessions as the panels are shown them: the service's record with what the tool and the process watch learned. */
  facts: SessionFacts;
  tool: TerminalTool;
  /** Every session's commands (issue 36). */
  timeline: Timeline;
  /** MCP clients connected right now. */
  agents: AgentRegistry;
  /** Chats with ACP agents. */
  chats: ChatHost;
  /** Panel sockets open right now. */
  panelCount(): number;
  /** The panel URL with a fresh one-time ticket, for a browser. */
  panelUrl(): string;
  /** Tells the agents' `ptydeck mcp` that `ptydeck stop` is stopping the host; answers how many agents were connected. */
  announceStop(): number;
  /**
   * Stops serving, removes the discovery file and disposes the sessions if it created the service.
   * 'keep' (default): the session store keeps how they ended, for the next host. 'forget' (a
   * deliberate stop): once every session has ended, they are removed, and the store with them.
   */
  close(how?: 'keep' | 'forget'): Promise<void>;
}

function ensureDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/**
 * The local server `ptydeck serve` and the desktop app run: the panel (static
 * renderer and WebSocket) and MCP over Streamable HTTP at /mcp, each MCP
 * connection served by its own McpServer over one shared terminal tool.
 */
export async function startLocalServer(options: LocalServerOptions = {}): Promise<LocalServer> {
  const stateDir = options.stateDir ?? resolveStateDir();
  const judgePeer = options.judgePeer ?? judgePeerFromProc;
  const configDir = options.configDir ?? resolveConfigDir(options.agentEnv ?? process.env);
  const hostId = options.service ? options.service.labels.hostId : hostIdOf(ensureDir(stateDir));
  const services = await buildHostServices({
    stateDir,
    panels: true,
    configDir,
    ...(options.service ? { service: options.service } : {}),
    // Every host of this state directory marks its sessions' processes alike, so a restarted one lists what they left.
    // The id is the directory's, so it is made first (as server.json's writer would) on a first run.
    ...(options.service ? {} : { hostId }),
    limits: options.limits,
    ...(options.screens ? { screens: options.screens } : {}),
    screenThread: options.screenThread,
    ...(options.screenWorkerSpawn ? { screenWorkerSpawn: options.screenWorkerSpawn } : {}),
    // What dead hosts' chats of this state directory left running, beside what its sessions left.
    processWatch: { chatOrphans: () => orphanedChatProcesses(hostId), ...options.processWatch },
    chats: { launchDir: options.launchDir, killGraceMs: options.agentKillGraceMs, mcp: options.writeDiscovery ?? true },
    agentEnv: options.agentEnv,
    sandbox: options.sandbox,
    ...(options.sessionStore ? { sessionStore: options.sessionStore } : {}),
  });
  const { service, screens, facts, tool, timeline, developerEnv } = services;
  const processes = services.processes!;
  const chats = services.chats!;
  // The developer's bash tabs get the marks too, unless config.json says not (developer-shell.ts).
  const developerShell = new DeveloperShell();
  let http;
  try {
    http = await startHttpServer({
      service,
      screens,
      facts,
      processes,
      createMcpServer: services.createMcpServer,
      host: options.host,
      port: options.port,
      stateDir,
      writeDiscovery: options.writeDiscovery,
      appDir: options.appDir,
      ticketTtlMs: options.ticketTtlMs,
      mcpAbandonMs: options.mcpAbandonMs,
      mcpIdleMs: options.mcpIdleMs,
      mcpStreamAfterMs: options.mcpStreamAfterMs,
      maxMcpSessions: options.maxMcpSessions,
      connectionBounds: options.connectionBounds,
      presentPanelLink: options.presentPanelLink,
      lookEarly: options.judgePeer ? options.lookEarly : lookEarlyFromProc,
      judgePeer: (socket, sessionPids, claimedPid, early) => {
        const verdict = judgePeer(socket, sessionPids, claimedPid, early);
        // A process outside every session is the developer's: its environment is the one their tabs get.
        if (verdict.kind === 'outside' && verdict.pids[0] !== undefined) developerEnv.learnFrom(verdict.pids[0]);
        return verdict;
      },
      route: options.route,
      chats,
      chatBindings: services.chatBindings!,
      timeline,
      // The developer's bash tabs get the marks too, unless config.json says not (developer-shell.ts).
      developerShell: (shell) => (developerShellIntegration(configDir) ? developerShell.argsFor(shell) : undefined),
      // Each panel that asks reaches the remotes in remotes.json itself, through ssh.
      remotes: options.remotes ?? remoteHostsOpener({ configDir, stateDir }),
    });
  } catch (error) {
    await services.dispose('abandon');
    developerShell.dispose();
    throw error;
  }
  const started = http;
  // What survived the sweep (or started as it ended, a supervisor's respawn) is listed from the next look.
  void chats.orphansEnded.then(() => processes.rescan());
  // An agent whose connection ended leaves its sessions to the developer, as orphans the tool bounds.
  const stopFollowingDepartures = started.agents.onRemoved((agent) => tool.ownerDisconnected(agent.id));
  const stopFollowingReturns = started.agents.onAdded((agent) => tool.ownerReturned(agent.id));
  const stopFollowingAgents = () => {
    stopFollowingDepartures();
    stopFollowingReturns();
  };
  let closing: Promise<void> | undefined;
  return {
    url: started.url,
    port: started.port,
    agentToken: started.agentToken,
    panelToken: started.panelToken,
    instance: started.instance,
    discoveryRecord: started.discoveryRecord,
    service,
    screens,
    facts,
    tool,
    timeline,
    agents: started.agents,
    chats,
    panelCount: () => started.panelCount(),
    panelUrl: () => started.panelUrl(),
    announceStop: () => started.announceStop(),
    close: (how = 'keep') =>
      (closing ??= (async () => {
        stopFollowingAgents();
        // Agents first: their requests reach the service, and their MCP connections the server.
        await services.closeChats();
        await started.close();
        await services.dispose(how === 'forget' ? 'forget' : 'stop');
        developerShell.dispose();
      })()),
  };
}
