// The environment variables by which ptydeck marks its sessions' and chats' processes: the host sets them,
// and both the host and its clients read them (who is inside a session, what a host must not inherit).

/** Set in every session's environment: programs find their tab by it, and the server knows them for a session's. */
export const SESSION_ID_ENV = 'PTYDECK_SESSION_ID';
/** Beside it, the host's id and the session's key (pty/session-labels.ts): whose the processes that carry them are. */
export const HOST_ID_ENV = 'PTYDECK_HOST_ID';
export const SESSION_KEY_ENV = 'PTYDECK_SESSION_KEY';

/** The environment variable that hands a chat's binding to the `ptydeck mcp` it starts. */
export const CHAT_BINDING_ENV = 'PTYDECK_CHAT_BINDING';
/**
 * Set in a chat's agent's environment (the chat's id, no secret): the server
 * knows the agent's processes for a chat's by it, as PTYDECK_SESSION_ID marks a session's.
 */
export const CHAT_ID_ENV = 'PTYDECK_CHAT_ID';
/**
 * Set beside PTYDECK_CHAT_ID in a chat's agent's environment: the host running
 * the chat, as `<pid>:<start ticks>` (a pid alone could name a later process).
 * Whatever the agent starts inherits it, so a later host can tell what a dead
 * host's chats left running from a live host's chats (chats/orphaned-agents.ts).
 */
export const CHAT_HOST_ENV = 'PTYDECK_CHAT_HOST';

/** An environment as Node gives it: a variable may be unset. */
export type EnvLike = Record<string, string | undefined>;
