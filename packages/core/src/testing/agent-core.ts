import { afterAll, beforeAll } from 'vitest';
import type { ChatBindings } from '../chats/chat-bindings.js';
import { createAgentMcpServer } from '../terminal-tool/mcp-server.js';
import { createTerminalTool, type TerminalTool } from '../terminal-tool/terminal-tool.js';
import { SessionFacts } from '../facts/index.js';
import { createPtyService } from '../pty/pty-service.js';
import { isolatedEnv } from './isolated-env.js';
import type { PtyService } from '../pty/types.js';
import { startTestHttpServer, type TestHttpServer as HttpServer } from './http-core.js';

/** A test file's HTTP server serving the agent tool's MCP (no panel files, no discovery file), made before its tests and closed after. */
export interface AgentCore {
  readonly service: PtyService;
  readonly tool: TerminalTool;
  readonly core: HttpServer;
}

export function useAgentCore(options: { chatBindings?: ChatBindings } = {}): AgentCore {
  let made: { service: PtyService; tool: TerminalTool; core: HttpServer; facts: SessionFacts } | undefined;
  beforeAll(async () => {
    const service = createPtyService({ env: isolatedEnv(), killGraceMs: 500 });
    // One record of what is learned of the sessions, as the host has: the tool tells it, the panels are shown it.
    const facts = new SessionFacts(service);
    const tool = createTerminalTool(service, { facts });
    const core = await startTestHttpServer({
      service,
      facts,
      writeDiscovery: false,
      appDir: '/nonexistent',
      createMcpServer: (connection) => createAgentMcpServer({ tool, connection, panel: true }),
      ...(options.chatBindings ? { chatBindings: options.chatBindings } : {}),
    });
    made = { service, tool, core, facts };
  });
  afterAll(async () => {
    await made?.core.close();
    made?.tool.dispose();
    made?.facts.dispose();
    await made?.service.dispose();
  });
  const required = () => {
    if (!made) throw new Error('the agent core is made in beforeAll');
    return made;
  };
  return {
    get service() {
      return required().service;
    },
    get tool() {
      return required().tool;
    },
    get core() {
      return required().core;
    },
  };
}
