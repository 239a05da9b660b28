export * from './session.js';
export * from './events.js';
export * from './panel-protocol.js';
export * from './output-frame.js';
