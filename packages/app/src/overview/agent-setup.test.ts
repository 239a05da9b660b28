import { describe, expect, it } from 'vitest';
import { AGENT_SETUPS } from './agent-setup.js';

describe('AGENT_SETUPS', () => {
  it('covers the four agents once each', () => {
    expect(AGENT_SETUPS.map((setup) => setup.id)).toEqual(['claude-code', 'codex', 'cursor', 'opencode']);
  });

  it('has JSON snippets that parse and run `npx ptydeck mcp`', () => {
    const cursor = JSON.parse(AGENT_SETUPS.find((s) => s.id === 'cursor')!.snippet);
    expect(cursor.mcpServers.ptydeck).toEqual({ command: 'npx', args: ['ptydeck', 'mcp'] });
    const opencode = JSON.parse(AGENT_SETUPS.find((s) => s.id === 'opencode')!.snippet);
    expect(opencode.mcp.ptydeck).toEqual({ type: 'local', command: ['npx', 'ptydeck', 'mcp'] });
  });

  it('has the Codex table and the Claude Code command', () => {
    expect(AGENT_SETUPS.find((s) => s.id === 'codex')!.snippet).toBe('[mcp_servers.ptydeck]\ncommand = "npx"\nargs = ["ptydeck", "mcp"]');
    expect(AGENT_SETUPS.find((s) => s.id === 'claude-code')!.snippet).toBe('claude mcp add ptydeck -- npx ptydeck mcp');
  });
});
