import { afterAll, beforeAll } from 'vitest';
import type { ChatBindings } from '../chats/chat-bindings.js';
import { createAgentMcpServer } from '../terminal-tool/mcp-server.js';
import { createTerminalTool, type TerminalTool } from '../terminal-tool/terminal-tool.js';
import { createPtyService } from '../pty/pty-service.js';
import { isolatedEnv } from './isolated-env.js';
import type { PtyService } from '../pty/types.js';
import { startHttpServer, type HttpServer } from '../server/http-server.js';

/** A test file's HTTP server serving the agent tool's MCP (no panel files, no discovery file), made before its tests and closed after. */
export interface AgentCore {
  readonly service: PtyService;
  readonly tool: TerminalTool;
  readonly core: HttpServer;
}

export function useAgentCore(options: { chatBindings?: ChatBindings } = {}): AgentCore {
  let made: { service: PtyService; tool: TerminalTool; core: HttpServer } | undefined;
  beforeAll(async () => {
    const service = createPtyService({ env: isolatedEnv(), killGraceMs: 500 });
    const tool = createTerminalTool(service);
    const core = await startHttpServer({
      service,
      writeDiscovery: false,
      appDir: '/nonexistent',
      createMcpServer: (connection) => createAgentMcpServer({ tool, connection }),
      ...(options.chatBindings ? { chatBindings: options.chatBindings } : {}),
    });
    made = { service, tool, core };
  });
  afterAll(async () => {
    await made?.core.close();
    made?.tool.dispose();
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
