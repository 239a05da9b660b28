import type { PtyService } from '../pty/types.js';
import { createPtyService } from '../pty/pty-service.js';
import { createTerminalTool, type TerminalTool } from '../agent/terminal-tool.js';
import { createAgentMcpServer } from '../agent/mcp-server.js';
import { ScreenService } from '../screen/screen-service.js';
import type { AgentRegistry } from './agent-registry.js';
import { startServerCore, type ServerCoreOptions } from './server-core.js';

/** The server core's options, with the PTY service optional and the MCP factory built in. */
export interface LocalServerOptions extends Omit<ServerCoreOptions, 'service' | 'createMcpServer'> {
  /** The PTY service to serve; without one the server creates its own and disposes it on close. */
  service?: PtyService;
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
  tool: TerminalTool;
  /** MCP clients connected right now. */
  agents: AgentRegistry;
  /** The panel URL with a fresh one-time ticket, for a browser. */
  panelUrl(): string;
  /** Stops serving, removes the discovery file and disposes the sessions if it created the service. */
  close(): Promise<void>;
}

/**
 * The local server `ptydeck serve` and the desktop app run: the panel (static
 * renderer and WebSocket) and MCP over Streamable HTTP at /mcp, each MCP
 * connection served by its own McpServer over one shared terminal tool.
 */
export async function startLocalServer(options: LocalServerOptions = {}): Promise<LocalServer> {
  const ownsService = options.service === undefined;
  const service = options.service ?? createPtyService();
  // One screen per session for the tool's screen reads and the viewers' resyncs alike.
  const ownsScreens = options.screens === undefined;
  const screens = options.screens ?? new ScreenService(service);
  const tool = createTerminalTool(service, { screens });
  let core;
  try {
    core = await startServerCore({
      service,
      screens,
      createMcpServer: (connection) => createAgentMcpServer({ tool, connection }),
      host: options.host,
      port: options.port,
      stateDir: options.stateDir,
      writeDiscovery: options.writeDiscovery,
      appDir: options.appDir,
      ticketTtlMs: options.ticketTtlMs,
      mcpAbandonMs: options.mcpAbandonMs,
      mcpIdleMs: options.mcpIdleMs,
      maxMcpSessions: options.maxMcpSessions,
      connectionBounds: options.connectionBounds,
      presentPanelLink: options.presentPanelLink,
      judgePeer: options.judgePeer,
    });
  } catch (error) {
    tool.dispose();
    if (ownsScreens) screens.dispose();
    if (ownsService) await service.dispose();
    throw error;
  }
  const started = core;
  // An agent whose connection ended leaves its sessions to the developer, as orphans the tool bounds.
  const stopFollowingAgents = started.agents.onRemoved((agent) => tool.ownerDisconnected(agent.id));
  let closing: Promise<void> | undefined;
  return {
    url: started.url,
    port: started.port,
    agentToken: started.agentToken,
    panelToken: started.panelToken,
    instance: started.instance,
    service,
    tool,
    agents: started.agents,
    panelUrl: () => started.panelUrl(),
    close: () =>
      (closing ??= (async () => {
        stopFollowingAgents();
        await started.close();
        tool.dispose();
        if (ownsScreens) screens.dispose();
        if (ownsService) await service.dispose();
      })()),
  };
}
