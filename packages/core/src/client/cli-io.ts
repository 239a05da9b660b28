// The streams a CLI command writes to, in a module of its own so that the
// commands main.ts loads on demand can name it without importing main.ts back.
import type { StreamLike } from '../capability/terminal-capability.js';

/** Where a command writes: process.stdout or stderr, a direct writer (direct-output.ts), or a test's stream. */
export interface CliOutput extends StreamLike {
  write(chunk: string | Uint8Array): unknown;
}

/** The process's stdout and stderr, or a test's streams. */
export interface CliIo {
  stdout: CliOutput;
  stderr: CliOutput;
}
