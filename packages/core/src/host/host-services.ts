// What a ptydeck core is made of, built apart from serving it: the host (local-server.ts) serves these; `mcp --embedded` speaks them over stdio.
import { mkdirSync } from 'node:fs';
import type { Worker } from 'node:worker_threads';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { reportError } from '@ptydeck/contract';
import type { PtyService, PtyServiceOptions } from '../pty/types.js';
import { createPtyService } from '../pty/pty-service.js';
import { createAgentMcpServer, createTerminalTool, type AgentConnection, type TerminalTool } from '../terminal-tool/index.js';
import { registerHistoryTool, Timeline } from '../timeline/index.js';
import { ScreenMirror, ScreenService } from '../screen/index.js';
import { ProcessWatch, SessionFacts, type ProcessWatchOptions } from '../facts/index.js';
import { ChatHost } from '../chats/chat-host.js';
import { ChatBindings } from '../chats/chat-bindings.js';
import { resolveConfigDir } from '../chats/agents-config.js';
import { ptydeckLauncher } from '../common/mcp-launch.js';
import type { SessionStore } from '../persist/session-store.js';
import { restoreAndRecord } from '../server/session-persistence.js';
import { DeveloperEnv } from '../server/developer-env.js';
import { choiceFor, readSandboxConfig, SandboxConfig, sandboxContext, type SandboxSettings } from '../sandbox/index.js';

export interface HostServicesOptions {
  /** The state directory: hidden from sandboxed shells, and where chats' agents find this host. */
  stateDir: string;
  /** Whether panels can show the sessions (a host's can; `ptydeck mcp --embedded` serves none): its agents are told which. */
  panels: boolean;
  /** Where agents.json and config.json are read; default $PTYDECK_CONFIG_DIR, $XDG_CONFIG_HOME/ptydeck, ~/.config/ptydeck. */
  configDir?: string;
  /** The PTY service to use; without one a service is created and disposed with the rest. */
  service?: PtyService;
  /** The label every session's processes carry (pty/session-labels.ts) for a created service; default one of its own. */
  hostId?: string;
  /** Bounds of a created service; defaults in pty/types.ts. */
  limits?: Pick<PtyServiceOptions, 'maxLiveSessions' | 'maxExitedSessions'>;
  /** The sessions' screens; without them they are created and disposed with the rest. */
  screens?: ScreenService;
  /**
   * Where created screens parse: 'worker' (default, as shipped: a panel's frames never wait on a
   * parse), or 'main': this thread, lazily, when read (bench figure 5; a core no panel watches).
   */
  screenThread?: 'worker' | 'main';
  /** Starts the screen worker instead of the shipped spawn (bench figure 5's memory probe). */
  screenWorkerSpawn?: () => Worker;
  /** Watch the sessions' ports and leftover processes for panels (only a core that serves them). */
  processWatch?: ProcessWatchOptions | false;
  /**
   * Host chats with ACP agents (only a core a panel can reach). `mcp`: their agents' `ptydeck mcp`
   * finds this host through server.json, so only where one is written.
   */
  chats?: { launchDir?: string; killGraceMs?: number; mcp: boolean };
  /**
   * Base environment of chat agents' processes, and the HOME and PATH agents' sandboxes are built
   * from. Default the developer's environment as their tabs get it (server/developer-env.ts).
   */
  agentEnv?: Record<string, string | undefined>;
  /**
   * Whether agents' shells may be sandboxed (sandbox/): each gets the profile its client or
   * config.json names, else `workspace` where bubblewrap works. Default true; false runs every
   * agent shell as the developer.
   */
  sandbox?: boolean;
  /** Sessions kept across the host's death: restored before the services are handed out, then recorded; flushed at dispose. */
  sessionStore?: SessionStore;
}

export interface HostServices {
  service: PtyService;
  screens: ScreenService;
  /** The sessions as the panels are shown them: the service's record with what the tool and the process watch learned. */
  facts: SessionFacts;
  tool: TerminalTool;
  /** Every session's commands (issue 36), which terminal_history reads. */
  timeline: Timeline;
  /** Sessions start from it; a host's judge teaches it the developer's client's environment. */
  developerEnv: DeveloperEnv;
  /** With `processWatch`. */
  processes?: ProcessWatch;
  /** With `chats`. */
  chats?: ChatHost;
  chatBindings?: ChatBindings;
  /** One agent's MCP server: the terminal tool and terminal_history, its sessions those it owns. */
  createMcpServer(connection: AgentConnection): McpServer;
  /** Ends the chats' agents; before serving stops, as their requests reach the service. */
  closeChats(): Promise<void>;
  /**
   * Ends every session it created and disposes the rest. 'stop' (default): the store then
   * keeps how they ended. 'forget' (`ptydeck stop`): once every one has ended, each is removed
   * as closing its tab removes it, so the store keeps none (their commands stay in the Timeline
   * as closed sessions'). 'abandon' (nothing was served): the store stops recording first
   * and keeps what it held, for the next host.
   */
  dispose(how?: 'stop' | 'forget' | 'abandon'): Promise<void>;
}

/**
 * Builds a ptydeck core's services for `startHost` (served by local-server.ts)
 * and `ptydeck mcp --embedded` alike, so every agent's shells get the same
 * policy wherever they run: the sandbox config.json and the client name, the
 * environment without the injection vectors of whoever started the process,
 * and the timeline behind terminal_history.
 */
export async function buildHostServices(options: HostServicesOptions): Promise<HostServices> {
  const { stateDir } = options;
  // Sessions inherit the developer's client's environment, not this process's starter's (developer-env.ts).
  const developerEnv = new DeveloperEnv();
  const ownsService = options.service === undefined;
  const service = options.service ?? createPtyService({ ...options.limits, ...(options.hostId ? { hostId: options.hostId } : {}), env: () => developerEnv.current() });
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
  // A state directory made later (by a host started after a shell) would show in that shell's sandbox: make it now, so it is hidden.
  if (sandbox) mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  // One record of what is learned of the sessions: the tool tells it, the panels are shown it.
  const facts = new SessionFacts(service);
  // Each panel watches while it is connected: with none, no process table is read.
  const processes = options.processWatch === false || options.processWatch === undefined ? undefined : new ProcessWatch(service, facts, options.processWatch);
  const tool = createTerminalTool(service, { screens, facts, ...(sandbox ? { sandbox } : {}) });
  const timeline = new Timeline(service);
  // A resync's screen says where the commands in it are: the panel's gutter marks after a reload.
  const stopMarking = screens.markCommands((id, from, to) => timeline.commandCursors(id, from, to));
  // The developer's tabs: what the agent tool tells of its shells, their marks tell of these (`ptydeck ls` showed an
  // idle tab as running, and the overview could not say how its last command ended).
  const stopTellingTabs = timeline.onShellActivity(({ session, activity }) => {
    if (service.get(session)?.source === 'user') facts.setShellActivity(session, activity);
  });
  const chatBindings = options.chats ? new ChatBindings() : undefined;
  const chats = options.chats
    ? new ChatHost({
        service,
        configDir,
        ...(sandbox ? { sandbox } : {}),
        launchDir: options.chats.launchDir,
        // Not the host's own: whoever started the host (an agent's `ptydeck mcp`) chose that, injection variables and all.
        env: options.agentEnv ?? (() => developerEnv.current()),
        killGraceMs: options.chats.killGraceMs,
        // `ptydeck mcp` finds this host through server.json: without one, a chat's agent gets no MCP server.
        ...(options.chats.mcp ? { mcp: { launch: chatMcpLaunch(), bindings: chatBindings!, env: chatMcpEnv(stateDir) } } : {}),
      })
    : undefined;
  const closeChats = async () => {
    await chats?.dispose();
  };
  let stopRecording: (() => void) | undefined;
  const disposeRest = async (how: 'stop' | 'forget' | 'abandon') => {
    if (how === 'abandon') {
      stopRecording?.();
      stopRecording = undefined;
    }
    tool.dispose();
    processes?.dispose();
    facts.dispose();
    stopMarking();
    stopTellingTabs();
    if (ownsScreens) screens.dispose();
    if (ownsService) await service.dispose();
    // Only once every session has ended: a close that never gets here (one outlived the kill, the host's
    // bound ran out) leaves the store as it was, and the next host shows them lost. Before the flush, so the
    // store's removals and the closed sessions' command records are on disk when it resolves.
    if (how === 'forget' && ownsService) await forgetEvery(service);
    // After the sessions ended, so the store keeps how they ended.
    if (stopRecording) {
      await options.sessionStore!.flush();
      stopRecording();
    }
    timeline.dispose();
  };
  try {
    if (options.sessionStore) stopRecording = await restoreAndRecord(options.sessionStore, service, tool, undefined, timeline);
  } catch (error) {
    await closeChats();
    await disposeRest('abandon');
    throw error;
  }
  let disposing: Promise<void> | undefined;
  return {
    service,
    screens,
    facts,
    tool,
    timeline,
    developerEnv,
    ...(processes ? { processes } : {}),
    ...(chats ? { chats, chatBindings: chatBindings! } : {}),
    createMcpServer: (connection) =>
      createAgentMcpServer({ tool, connection, panel: options.panels, extend: (server, { id }) => registerHistoryTool(server, { timeline, service, ownerId: () => id }) }),
    closeChats,
    dispose: (how = 'stop') =>
      (disposing ??= (async () => {
        await closeChats();
        await disposeRest(how);
      })()),
  };
}

/**
 * How a chat's agent starts ptydeck's MCP server: this very runtime rather
 * than whatever `node` the agent's PATH finds (an agent may pass only the
 * variables it was given, and PATH is not among them).
 */
function chatMcpLaunch(): { command: string; args: string[] } {
  return { command: process.execPath, args: [ptydeckLauncher(), 'mcp'] };
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

/**
 * Removes every session of an ended service, as closing its tab would: the session store removes its
 * files and the timeline keeps its commands as a closed session's (what an agent ran stays in front of
 * the developer). One that cannot be removed is reported and stays for the next host.
 */
async function forgetEvery(service: PtyService): Promise<void> {
  await Promise.all(service.list().map((session) => service.remove(session.id).catch((error: unknown) => reportError(error, `removing session ${session.id} at the stop failed`))));
}
