/**
 * Header `ptydeck mcp` sets when it bridges a stdio agent, so the panel shows
 * how the agent came in. A module of its own so that the bridge can name it
 * without loading the server's MCP transport.
 */
export const BRIDGE_HEADER = 'x-ptydeck-bridge';
