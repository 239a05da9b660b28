/**
 * Header `ptydeck mcp` sets when it bridges a stdio agent, so the panel shows
 * how the agent came in. A module of its own so that the bridge can name it
 * without loading the server's MCP transport.
 */
export const BRIDGE_HEADER = 'x-ptydeck-bridge';

/**
 * Header carrying a chat's binding (PTYDECK_CHAT_BINDING in the bridge's
 * environment), so the connection's sessions land under that chat.
 */
export const CHAT_BINDING_HEADER = 'x-ptydeck-chat-binding';
