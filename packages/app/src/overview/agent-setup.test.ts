import { describe, expect, it } from 'vitest';
import { agentSetups } from './agent-setup.js';

const launch = { command: 'node', args: ["/home/dev/my tools/ptydeck/packages/core/bin/ptydeck.js", 'mcp'] };
const byId = (id: string) => agentSetups(launch).find((setup) => setup.id === id)!.snippet;

describe('agentSetups', () => {
  it("covers the README's five agents once each", () => {
    expect(agentSetups().map((setup) => setup.id)).toEqual(['claude-code', 'codex', 'cursor', 'opencode', 'zed']);
  });

  it('has JSON snippets that parse and run the launcher the server named', () => {
    expect(JSON.parse(byId('cursor')).mcpServers.ptydeck).toEqual({ command: 'node', args: launch.args });
    expect(JSON.parse(byId('opencode')).mcp.ptydeck).toEqual({ type: 'local', command: ['node', ...launch.args] });
    expect(JSON.parse(byId('zed')).context_servers.ptydeck).toEqual({ command: 'node', args: launch.args });
  });

  it('quotes a path with spaces for the shell and escapes it for TOML', () => {
    expect(byId('claude-code')).toBe("claude mcp add ptydeck -- node '/home/dev/my tools/ptydeck/packages/core/bin/ptydeck.js' mcp");
    expect(byId('codex')).toBe(
      '[mcp_servers.ptydeck]\ncommand = "node"\nargs = ["/home/dev/my tools/ptydeck/packages/core/bin/ptydeck.js", "mcp"]',
    );
  });

  it('falls back to a ptydeck on PATH before the server has said anything', () => {
    expect(agentSetups().find((setup) => setup.id === 'claude-code')!.snippet).toBe('claude mcp add ptydeck -- ptydeck mcp');
  });
});
