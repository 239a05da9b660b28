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

/**
 * Header carrying a `ptydeck mcp` process's agent key: a random secret it
 * makes at start and keeps only in memory (never in its environment, argv or
 * a file, which other processes of the user can read), sent on every connect.
 * The host derives the connection's owner from it (agent-identity.ts), so the
 * same bridge is the same owner on a host started after the last one died.
 */
export const AGENT_KEY_HEADER = 'x-ptydeck-agent-key';

/**
 * Header carrying the sandbox profile `ptydeck mcp --sandbox PROFILE` was
 * given: the developer's choice for this agent's shells, over the
 * configuration's. Only a client holding the agent token can send it, and a
 * sandboxed shell cannot read the token.
 */
export const SANDBOX_HEADER = 'x-ptydeck-sandbox';

/**
 * Header carrying the working directory of the agent that started `ptydeck
 * mcp` (URI-encoded: a path may hold any byte, a header only Latin-1), so its
 * shells start where the agent works rather than where the host happened to
 * start (client-cwd.ts). It grants nothing: the agent may name any directory in terminal_create.
 */
export const CLIENT_CWD_HEADER = 'x-ptydeck-client-cwd';
