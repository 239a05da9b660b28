export { createPtyService } from './pty/pty-service.js';
export { PtyError } from './pty/types.js';
export type * from './pty/types.js';
export { advertisedDepth, detectCapability, detectColor, ptySessionCapability } from './capability/terminal-capability.js';
export type * from './capability/terminal-capability.js';
export * from './agent/index.js';
export { startLocalServer, type LocalServer, type LocalServerOptions } from './server/local-server.js';
export { discoveryPath, readDiscovery, resolveStateDir, type DiscoveryLookup, type DiscoveryRecord } from './server/discovery.js';
export { main as runCli } from './cli/main.js';
