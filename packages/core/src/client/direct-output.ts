// A short command's stdout and stderr written straight to their descriptors when they are pipes or files.
import { fstatSync, writeSync } from 'node:fs';
import type { CliIo, CliOutput } from './cli-io.js';

/**
 * One of the process's standard descriptors, written with writeSync when it
 * is a pipe, a socket (what Node's and libuv's spawn give a child for a pipe)
 * or a file: process.stdout on a pipe is a net.Socket, and building it cost a
 * short command (`ptydeck ls | jq`, a script's `$(ptydeck url)`) 1.5 ms of a
 * 50 ms start (bench figure 12). A terminal, or any other character device,
 * gets the process's own stream, which knows its size. A write the
 * descriptor refuses for now (EAGAIN: a reader left it non-blocking) goes,
 * with everything after it, through the process's stream, which waits for
 * the reader; `drained` resolves once that is written.
 */
export class DirectOutput implements CliOutput {
  readonly isTTY = false;
  private stream: NodeJS.WriteStream | undefined;
  /** The reader went away (EPIPE): the rest is dropped, as process.stdout drops it, and the command ends as it would. */
  private readerGone = false;

  constructor(
    readonly fd: 1 | 2,
    private readonly processStream: () => NodeJS.WriteStream,
  ) {}

  write(chunk: string | Uint8Array): boolean {
    if (this.readerGone) return false;
    if (this.stream) return this.stream.write(chunk);
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let written = 0;
    try {
      while (written < bytes.length) written += writeSync(this.fd, bytes, written);
      return true;
    } catch (error) {
      // `ptydeck ls | head -1`: nobody reads the rest, which is nothing to report.
      if ((error as NodeJS.ErrnoException).code === 'EPIPE') {
        this.readerGone = true;
        return false;
      }
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      this.stream = this.processStream();
      return this.stream.write(bytes.subarray(written));
    }
  }

  drained(): Promise<void> {
    return this.stream ? written(this.stream) : Promise.resolve();
  }
}

/** What a short command writes to, and a promise that it is all written. */
export interface StandardIo {
  io: CliIo;
  drained(): Promise<void>;
}

/** stdout and stderr as a short command writes them: each direct when it is a pipe, a socket or a file (DirectOutput), else the process's stream. */
export function standardIo(): StandardIo {
  const stdout = isDirectTarget(1) ? new DirectOutput(1, () => process.stdout) : process.stdout;
  const stderr = isDirectTarget(2) ? new DirectOutput(2, () => process.stderr) : process.stderr;
  return {
    io: { stdout, stderr },
    drained: async () => {
      await Promise.all([stdout, stderr].map((out) => (out instanceof DirectOutput ? out.drained() : written(out))));
    },
  };
}

/** Resolves once what was written to `stream` before this is written. */
function written(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => stream.write('', () => resolve()));
}

function isDirectTarget(fd: number): boolean {
  try {
    const stat = fstatSync(fd);
    return stat.isFIFO() || stat.isSocket() || stat.isFile();
  } catch {
    return false;
  }
}
