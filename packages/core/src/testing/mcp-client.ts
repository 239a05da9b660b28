import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { createAgentMcpServer, type AgentMcpServerOptions } from '../terminal-tool/mcp-server.js';
import type { TerminalTool } from '../terminal-tool/terminal-tool.js';

export interface McpToolResult {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, any>;
}

export interface McpCaller {
  /** Calls a tool; an isError result is returned, not thrown. */
  call(name: string, args?: Record<string, unknown>): Promise<McpToolResult>;
  /** Calls a tool that must succeed and returns its structured content. */
  ok(name: string, args?: Record<string, unknown>): Promise<Record<string, any>>;
  close(): Promise<void>;
}

/**
 * The official MCP SDK client on the agent server for connection `id`, over
 * the SDK's in-memory transport. It lists the tools first, which makes every
 * callTool check its result against the tool's output schema, as opencode
 * and MCP Inspector do.
 */
export async function connectMcp(tool: TerminalTool, id: string, extend?: AgentMcpServerOptions['extend']): Promise<McpCaller> {
  const server = createAgentMcpServer({ tool, connection: { id, transport: 'stdio' }, panel: true, ...(extend ? { extend } : {}) });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await server.connect(serverTransport);
  const client = new Client({ name: id, version: '1.0.0' });
  await client.connect(clientTransport);
  await client.listTools();
  const call = async (name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as McpToolResult;
  return {
    call,
    async ok(name, args) {
      const result = await call(name, args);
      if (result.isError) throw new Error(`${name} failed: ${result.content[0]?.text}`);
      return result.structuredContent!;
    },
    close: () => client.close(),
  };
}
