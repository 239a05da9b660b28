/** How to connect each supported agent to ptydeck's MCP server (stdio, through `npx ptydeck mcp`). */
export interface AgentSetup {
  id: 'claude-code' | 'codex' | 'cursor' | 'opencode';
  name: string;
  /** Where the snippet goes, shown above it. */
  where: string;
  language: 'shell' | 'toml' | 'json';
  snippet: string;
}

export const AGENT_SETUPS: readonly AgentSetup[] = [
  {
    id: 'claude-code',
    name: 'Claude Code',
    where: 'Run in your project',
    language: 'shell',
    snippet: 'claude mcp add ptydeck -- npx ptydeck mcp',
  },
  {
    id: 'codex',
    name: 'Codex',
    where: '~/.codex/config.toml',
    language: 'toml',
    snippet: ['[mcp_servers.ptydeck]', 'command = "npx"', 'args = ["ptydeck", "mcp"]'].join('\n'),
  },
  {
    id: 'cursor',
    name: 'Cursor',
    where: '.cursor/mcp.json',
    language: 'json',
    snippet: ['{', '  "mcpServers": {', '    "ptydeck": { "command": "npx", "args": ["ptydeck", "mcp"] }', '  }', '}'].join('\n'),
  },
  {
    id: 'opencode',
    name: 'opencode',
    where: 'opencode.json',
    language: 'json',
    snippet: ['{', '  "mcp": {', '    "ptydeck": { "type": "local", "command": ["npx", "ptydeck", "mcp"] }', '  }', '}'].join('\n'),
  },
];
