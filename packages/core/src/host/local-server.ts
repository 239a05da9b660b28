// The local server with everything in it: the PTY service, screens, terminal tool and chats, served through http-server.ts.
import type { Worker } from 'node:worker_threads';
import { mkdirSync } from 'node:fs';
import type { PtyService, PtyServiceOptions } from '../pty/types.js';
import { createPtyService } from '../pty/pty-service.js';
import { hostIdOf } from '../pty/session-labels.js';
import { createAgentMcpServer, createTerminalTool, type TerminalTool } from '../terminal-tool/index.js';
import { registerHistoryTool, Timeline } from '../timeline/index.js';
import { ScreenMirror, ScreenService } from '../screen/index.js';
import type { AgentRegistry } from '../server/agent-registry.js';
import { startHttpServer, type HttpServerOptions } from '../server/http-server.js';
import { SessionFacts } from '../facts/index.js';
import { ChatHost } from '../chats/chat-host.js';
import { ChatBindings } from '../chats/chat-bindings.js';
import { resolveStateDir } from '../common/discovery.js';
import { ptydeckLauncher } from '../common/mcp-launch.js';
import type { SessionStore } from '../persist/session-store.js';
import { restoreAndRecord } from '../server/session-persistence.js';
import { DeveloperEnv } from '../server/developer-env.js';
import { judgePeerFromProc } from '../common/peer-process.js';
import { resolveConfigDir } from '../chats/agents-config.js';
import { remoteHostsOpener } from '../remote/remote-hosts.js';
import { choiceFor, readSandboxConfig, SandboxConfig, sandboxContext, type SandboxSettings } from '../sandbox/index.js';

/** The HTTP server's options (http-server.ts), with the PTY service optional and the MCP factory built in. */
export interface LocalServerOptions extends Omit<HttpServerOptions, 'service' | 'createMcpServer' | 'chats' | 'chatBindings'> {
  /** The PTY service to serve; without one the server creates its own and disposes it on close. */
  service?: PtyService;
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
  /** Stops serving, removes the discovery file and disposes the sessions if it created the service. */
  close(): Promise<void>;
}

/**
 * How a chat's agent starts ptydeck's MCP server: this very runtime rather
 * than whatever `node` the agent's PATH finds (an agent may pass only the
 * variables it was given, and PATH is not among them).
 */
function chatMcpLaunch(): { command: string; args: string[] } {
  return { command: process.execPath, args: [ptydeckLauncher(), 'mcp'] };
}

function ensureDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

function chatMcpEnv(stateDir: string): Record<string, string> {
  return {
    // Where `ptydeck mcp` finds this server's server.json.
    PTYDECK_STATE_DIR: stateDir,
    // In the desktop app the runtime is Electron's binary, which runs a script as Node only when told to.
    ...(process.versions.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {}),
  };
}

/**
 * The local server `ptydeck serve` and the desktop app run: the panel (static
 * renderer and WebSocket) and MCP over Streamable HTTP at /mcp, each MCP
 * connection served by its own McpServer over one shared terminal tool.
 */
export async function startLocalServer(options: LocalServerOptions = {}): Promise<LocalServer> {
  const ownsService = options.service === undefined;
  const stateDir = options.stateDir ?? resolveStateDir();
  // Sessions inherit the developer's client's environment, not the host's (developer-env.ts).
  const developerEnv = new DeveloperEnv();
  // Every host of this state directory marks its sessions' processes alike, so a restarted one lists what they left.
  // The id is the directory's, so it is made first (as server.json's writer would) on a first run.
  const service = options.service ?? createPtyService({ ...options.limits, hostId: hostIdOf(ensureDir(stateDir)), env: () => developerEnv.current() });
  const judgePeer = options.judgePeer ?? judgePeerFromProc;
  // One screen per session for the tool's screen reads and the viewers' resyncs alike.
  const ownsScreens = options.screens === undefined;
  const screens =
    options.screens ??
    new ScreenService(
      service,
      options.screenThread === 'main' ? { createScreen: (screen) => new ScreenMirror(screen) } : options.screenWorkerSpawn ? { worker: { spawn: options.screenWorkerSpawn } } : {},
    );
  const configDir = options.configDir ?? resolveConfigDir(options.agentEnv ?? process.env);
  const sandbox = (options.sandbox ?? true) ? sandboxSettings(stateDir, configDir) : undefined;
  // One record of what is learned of the sessions: the tool tells it, the panels are shown it.
  const facts = new SessionFacts(service);
  const tool = createTerminalTool(service, { screens, facts, ...(sandbox ? { sandbox } : {}) });
  const timeline = new Timeline(service);
  const chatBindings = new ChatBindings();
  const chats = new ChatHost({
    service,
    configDir,
    ...(sandbox ? { sandbox } : {}),
    launchDir: options.launchDir,
    // Not the host's own: whoever started the host (an agent's `ptydeck mcp`) chose that, injection variables and all.
    env: options.agentEnv ?? (() => developerEnv.current()),
    killGraceMs: options.agentKillGraceMs,
    // `ptydeck mcp` finds this server through server.json: without one, a chat's agent gets no MCP server.
    ...((options.writeDiscovery ?? true) ? { mcp: { launch: chatMcpLaunch(), bindings: chatBindings, env: chatMcpEnv(stateDir) } } : {}),
  });
  let http;
  let stopRecording: (() => void) | undefined;
  try {
    if (options.sessionStore) stopRecording = await restoreAndRecord(options.sessionStore, service, tool, undefined, timeline);
    http = await startHttpServer({
      service,
      screens,
      facts,
      createMcpServer: (connection) =>
        createAgentMcpServer({ tool, connection, extend: (server, { id }) => registerHistoryTool(server, { timeline, service, ownerId: () => id }) }),
      host: options.host,
      port: options.port,
      stateDir,
      writeDiscovery: options.writeDiscovery,
      appDir: options.appDir,
      ticketTtlMs: options.ticketTtlMs,
      mcpAbandonMs: options.mcpAbandonMs,
      mcpIdleMs: options.mcpIdleMs,
      maxMcpSessions: options.maxMcpSessions,
      connectionBounds: options.connectionBounds,
      presentPanelLink: options.presentPanelLink,
      judgePeer: (socket, sessionPids) => {
        const verdict = judgePeer(socket, sessionPids);
        // A process outside every session is the developer's: its environment is the one their tabs get.
        if (verdict.kind === 'outside' && verdict.pids[0] !== undefined) developerEnv.learnFrom(verdict.pids[0]);
        return verdict;
      },
      route: options.route,
      processWatch: options.processWatch,
      chats,
      chatBindings,
      timeline,
      // Each panel that asks reaches the remotes in remotes.json itself, through ssh.
      remotes: options.remotes ?? remoteHostsOpener({ configDir, stateDir }),
    });
  } catch (error) {
    stopRecording?.();
    await chats.dispose();
    tool.dispose();
    timeline.dispose();
    facts.dispose();
    if (ownsScreens) screens.dispose();
    if (ownsService) await service.dispose();
    throw error;
  }
  const started = http;
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
    close: () =>
      (closing ??= (async () => {
        stopFollowingAgents();
        // Agents first: their requests reach the service, and their MCP connections the server.
        await chats.dispose();
        await started.close();
        tool.dispose();
        facts.dispose();
        if (ownsScreens) screens.dispose();
        if (ownsService) await service.dispose();
        // After the sessions ended, so the store keeps how they ended.
        if (stopRecording) {
          await options.sessionStore!.flush();
          stopRecording();
        }
        timeline.dispose();
      })()),
  };
}

/**
 * Agents' sandboxes as config.json says, read again for each new shell so an
 * edit needs no restart. A config.json that cannot be read gives every agent
 * shell the strictest profile, never none.
 */
function sandboxSettings(stateDir: string, configDir: string): SandboxSettings {
  return {
    forOwner: (owner) => {
      let config: SandboxConfig | undefined;
      try {
        config = readSandboxConfig(configDir);
      } catch {
        // Below: the strictest profile, with the built-in paths.
      }
      return {
        choice: config ? choiceFor(owner, config) : { profile: 'workspace-offline', explicit: true },
        context: sandboxContext({ stateDir, configDir, config: config ?? SandboxConfig.parse({}) }),
      };
    },
  };
}
