/** The agent side of ptydeck: terminals for MCP clients. */
export { createTerminalTool } from './terminal-tool.js';
export type {
  CloseResult,
  CreateResult,
  ListedTerminal,
  OutputResult,
  ReadResult as TerminalReadResult,
  RunResult,
  TerminalOwner,
  TerminalTool,
  TerminalToolOptions,
  ToolCallHooks,
  WaitResult,
} from './terminal-tool.js';
export { createAgentMcpServer, type AgentConnection, type AgentMcpServerOptions } from './mcp-server.js';
export { TerminalToolError, type TerminalToolErrorCode } from './errors.js';
export type { TerminalState } from './agent-terminal.js';
// The command timeline (timeline/) reads the same marks, and renders output as the tool does.
export { BASH_INTEGRATION, announcesShellKey, parseShellMark, type ShellMark } from './shell-integration.js';
// The developer's own bash tabs get the same marks (server/developer-shell.ts).
export { keepShellIntegration, SHELL_INTEGRATION_DIR, writeShellIntegration, type ShellIntegrationFiles } from './shell-integration.js';
export { boundText, renderPlainText } from './model-text.js';
export { runsInLinearTime } from './pattern-safety.js';
