// The streams a CLI command writes to, in a module of its own so that the
// commands main.ts loads on demand can name it without importing main.ts back.
import type { StreamLike } from '../capability/terminal-capability.js';

/** The process's stdout and stderr, or a test's streams. */
export interface CliIo {
  stdout: NodeJS.WritableStream & StreamLike;
  stderr: NodeJS.WritableStream & StreamLike;
}
