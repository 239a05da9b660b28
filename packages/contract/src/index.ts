// The contract's public entry: everything the core, the app and Electron share.

export * from './session.js';
export * from './events.js';
export * from './panel-protocol.js';
export * from './panel-wire.js';
export * from './panel-channel.js';
export * from './routes.js';
export * from './session-match.js';
export * from './chat-protocol.js';
export * from './process-protocol.js';
export * from './remote-protocol.js';
export * from './chat-fold.js';
export * from './output-frame.js';
export * from './report.js';
export * from './emitter.js';
export * from './disposable.js';
export * from './zod-issues.js';
export * from './lost-note.js';
export * from './timeline.js';
export * from './terminal-counts.js';
