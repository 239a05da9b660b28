// The core's public entry: what Electron's main process and other embedders use of the core.

export { createPtyService } from './pty/pty-service.js';
export { PtyError } from './pty/types.js';
export type * from './pty/types.js';
export { advertisedDepth, detectCapability, detectColor, ptySessionCapability } from './capability/terminal-capability.js';
export type * from './capability/terminal-capability.js';
export * from './screen/index.js';
export * from './terminal-tool/index.js';
export { startHost, type Host, type HostDiagnostics, type HostOptions, type HostStopRequest } from './host/start-host.js';
export * from './timeline/index.js';
export { openSessionStore, sessionStoreDir, sessionStoreSetting, type SessionStore, type SessionStoreOptions } from './persist/session-store.js';
export { discoveryPath, readDiscovery, resolveStateDir, type DiscoveryLookup, type DiscoveryRecord } from './common/discovery.js';
export { main as runCli } from './cli/main.js';
export { joinHostAsPanel, type HostPanel } from './client/panel-access.js';
export { ChatHost, type ChatHostOptions } from './chats/chat-host.js';
export { ChatError } from './chats/chat-session.js';
export { loadAgentsConfig, resolveConfigDir, type AgentConfig, type AgentsLoad } from './chats/agents-config.js';
export { KNOWN_AGENTS } from './chats/agent-choices.js';
