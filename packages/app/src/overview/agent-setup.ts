// How to connect each supported agent to ptydeck, as the overview's ready-to-copy snippets.
import type { McpLaunch } from '@ptydeck/contract';

/** How to connect each supported agent to ptydeck's stdio MCP server. */
export interface AgentSetup {
  id: 'claude-code' | 'codex' | 'cursor' | 'opencode' | 'zed';
  name: string;
  /** Where the snippet goes, shown above it. */
  where: string;
  language: 'shell' | 'toml' | 'json';
  snippet: string;
}

/** Used until the server says where this install's launcher is (it does in every snapshot). */
const DEFAULT_MCP_LAUNCH: McpLaunch = { command: 'ptydeck', args: ['mcp'] };

/** A word a POSIX shell reads back unchanged. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Builds the snippets (the README's table lists the same agents) for a launch command; TOML basic strings share JSON's escapes for paths. */
export function agentSetups(launch: McpLaunch = DEFAULT_MCP_LAUNCH): AgentSetup[] {
  const argv = [launch.command, ...launch.args];
  const json = (value: unknown) => JSON.stringify(value);
  return [
    {
      id: 'claude-code',
      name: 'Claude Code',
      where: 'Run in your project',
      language: 'shell',
      snippet: `claude mcp add ptydeck -- ${argv.map(shellWord).join(' ')}`,
    },
    {
      id: 'codex',
      name: 'Codex',
      where: '~/.codex/config.toml',
      language: 'toml',
      snippet: ['[mcp_servers.ptydeck]', `command = ${json(launch.command)}`, `args = [${launch.args.map(json).join(', ')}]`].join('\n'),
    },
    {
      id: 'cursor',
      name: 'Cursor',
      where: '.cursor/mcp.json',
      language: 'json',
      snippet: JSON.stringify({ mcpServers: { ptydeck: { command: launch.command, args: launch.args } } }, null, 2),
    },
    {
      id: 'opencode',
      name: 'opencode',
      where: 'opencode.json',
      language: 'json',
      snippet: JSON.stringify({ mcp: { ptydeck: { type: 'local', command: argv } } }, null, 2),
    },
    {
      id: 'zed',
      name: 'Zed',
      where: 'settings.json',
      language: 'json',
      snippet: JSON.stringify({ context_servers: { ptydeck: { command: launch.command, args: launch.args } } }, null, 2),
    },
  ];
}
