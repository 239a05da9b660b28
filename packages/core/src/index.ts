export { createPtyService } from './pty/pty-service.js';
export { PtyError } from './pty/types.js';
export type * from './pty/types.js';
