// A child on a PTY whose exit is reported only after its last byte of output.
import { readSync, writeSync } from 'node:fs';
import * as nodePty from 'node-pty';
import { closedExec } from '../common/closed-exec.js';
import { fillDescriptorGaps } from './fd-hygiene.js';
import { MasterReading, type ThreadReading } from './master-reading.js';
import { nodePtyMaster, onBytes, type NodePtyMaster } from './node-pty-adapter.js';
import { signalName } from './process-tree.js';

/**
 * A child on a PTY whose exit is reported only after its last byte.
 *
 * Why node-pty loses the tail of the output on Linux (read from its
 * lib/unixTerminal.js, libuv's src/unix/stream.c and strace):
 * node-pty reads the master through a tty.ReadStream, i.e. a libuv stream.
 * When the last slave fd closes, epoll reports POLLHUP on the master, and
 * libuv's uv__stream_io() treats "POLLHUP after a partial read" as EOF
 * without reading again. A partial read is normal for a PTY master: the
 * line discipline hands out at most 4095 bytes per read() however big the
 * buffer, so whatever is still queued in the kernel (the next 4 KB of an
 * 8 KB `cat`) is never read: strace shows two 4095-byte reads, then close(2)
 * with neither a 0-byte read nor EIO. Node then ends and destroys the socket, which
 * closes the fd and discards those bytes; node-pty emits exit on that
 * 'close'. (Separately, when the exit arrives first node-pty waits at most
 * 200 ms for 'close' and then destroys the socket itself.)
 *
 * The fix: every path that closes the master goes through socket.destroy()
 * (EOF -> end -> destroy, a read error, node-pty's 200 ms timer). We wrap
 * destroy() on this socket (node-pty-adapter.ts, interceptClose) so that,
 * before the fd is closed, it first delivers anything still buffered in the
 * stream, then drains the master
 * with non-blocking read(2) until EIO (slave closed and queue empty) or
 * EAGAIN (a background process still holds the slave and has written
 * nothing more). Since node-pty emits exit only after the socket's 'close',
 * every byte the process wrote is delivered before onExit fires. The one
 * bound is node-pty's 200 ms grace: output a background process writes
 * more than 200 ms after the session's process exited is not waited for.
 */
export interface PtyProcessOptions {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  cols: number;
  rows: number;
  /** Hands the terminal to the read thread while it floods; without it the event loop always reads. */
  threadReading?: ThreadReading;
}

export interface PtyExit {
  exitCode: number | null;
  signal: string | null;
  /**
   * True when some other process still had the terminal open when the
   * session's process exited (a background job): only then can processes
   * outlive the session, so only then is a process-table scan worth it.
   */
  terminalHeld: boolean;
}

export interface PtyProcess {
  readonly pid: number;
  /** Queues input; false, with nothing queued, when the backlog would pass its bound. */
  write(data: string | Uint8Array): boolean;
  resize(cols: number, rows: number): void;
  /** Stops reading the PTY (its writer blocks once the kernel's buffer is full); output already read still arrives. */
  pause(): void;
  /** Reads again. */
  resume(): void;
  /** Whether output already read (by the read thread) waits to be handed on. */
  pending(): boolean;
}

/** Most bytes drained synchronously at close: bounds the loop if a background process keeps writing. */
const MAX_DRAIN_BYTES = 4 * 1024 * 1024;
const DRAIN_BUFFER_BYTES = 64 * 1024;

/** Spawns `file` on a new PTY. onData gets each chunk in order; onExit fires once, after the last chunk. */
export function spawnPtyProcess(
  options: PtyProcessOptions,
  /** `reusable`: the chunk is a read thread batch, lent for the call, then given back (ReadThread.reuse). */
  onData: (chunk: Buffer, reusable: boolean) => void,
  onExit: (exit: PtyExit) => void,
): PtyProcess {
  const name = options.env.TERM ?? 'xterm-256color';
  const closed = closedExec(options.file, options.args, options.env);
  // Without bash on the machine, filling the gaps is what keeps other terminals' masters out (not under a race).
  const closeFillers = closed ? () => {} : fillDescriptorGaps();
  let pty: nodePty.IPty;
  try {
    // encoding: null makes node-pty hand us the socket's Buffers untouched:
    // no UTF-8 decoding on the hot path and no string <-> bytes round trip.
    pty = nodePty.spawn(closed?.file ?? options.file, closed?.args ?? options.args, {
      name,
      cols: options.cols,
      rows: options.rows,
      cwd: options.cwd,
      env: closed?.env ?? options.env,
      encoding: null,
    });
  } finally {
    closeFillers();
  }
  let master: NodePtyMaster;
  try {
    master = nodePtyMaster(pty);
  } catch (error) {
    pty.kill('SIGKILL');
    throw error;
  }
  const fd = master.fd;

  let terminalHeld = false;
  const input = new MasterInput(fd);
  const reading = new MasterReading(master, onData, options.threadReading);
  const drainAndClose = (finish: () => void) => {
    master.emitBuffered();
    terminalHeld = drainMaster(fd, (chunk) => onData(chunk, false));
    finish();
  };
  master.interceptClose((finish) => {
    // Input not yet written is dropped before the fd number is freed for reuse.
    input.close();
    // The read thread lets go of the fd; what it read is handed on (in turns, it may be MiBs) before anyone else reads it.
    const handedOn = reading.close();
    if (handedOn) void handedOn.then(() => drainAndClose(finish));
    else drainAndClose(finish);
  });

  onBytes(pty, (chunk) => reading.fromLoop(chunk));
  pty.onExit(({ exitCode, signal }) => {
    const name = signalName(signal);
    onExit({ exitCode: name ? null : exitCode, signal: name, terminalHeld });
  });

  return {
    pid: pty.pid,
    write: (data) => input.write(typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data.buffer, data.byteOffset, data.byteLength)),
    resize: (cols, rows) => {
      // The fd number may already belong to another terminal: never ioctl it after close.
      if (input.closed) throw new Error('the terminal is closed');
      pty.resize(cols, rows);
    },
    pause: () => reading.pause(),
    resume: () => reading.resume(),
    pending: () => reading.pending(),
  };
}

/** Waits between write attempts while the child is not reading: short at first, then backing off. */
/**
 * Input waiting for a program that does not read it is held here, up to this
 * many bytes; past it a write is refused whole. Unbounded, an agent that keeps
 * sending to a program that never reads grows the server's memory without end.
 */
export const MAX_INPUT_BACKLOG_BYTES = 4 * 1024 * 1024;
const INPUT_RETRY_MIN_MS = 1;
const INPUT_RETRY_MAX_MS = 50;

/**
 * Input to the master, written with write(2) on this thread.
 *
 * Why not node-pty's own write(): its write stream hands each write to the
 * thread pool and, on EAGAIN (a child that is not reading), retries on the
 * next tick by fd number, with no link to the fd's lifetime. When the session
 * ends mid-paste the master is closed, the kernel hands that number to the
 * next open(), often the next session's master, and the rest of the paste is
 * typed into that other session (12 of 40 tries in a loop that kills a
 * session mid-paste and starts another on exit). Here no write can be in
 * flight when the fd closes, and close() drops whatever is still queued.
 * Retries back off instead of spinning the event loop while a child ignores its input.
 */
class MasterInput {
  private readonly queue: Buffer[] = [];
  private timer: NodeJS.Timeout | undefined;
  private retryMs = INPUT_RETRY_MIN_MS;
  private queuedBytes = 0;
  closed = false;

  constructor(private readonly fd: number) {}

  write(data: Buffer): boolean {
    if (this.closed || data.length === 0) return true;
    if (this.queuedBytes + data.length > MAX_INPUT_BACKLOG_BYTES) return false;
    this.queue.push(data);
    this.queuedBytes += data.length;
    if (this.queue.length === 1 && this.timer === undefined) this.flush();
    return true;
  }

  close(): void {
    this.closed = true;
    this.queue.length = 0;
    this.queuedBytes = 0;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private flush(): void {
    this.timer = undefined;
    while (!this.closed && this.queue.length > 0) {
      const chunk = this.queue[0]!;
      let written: number;
      try {
        written = writeSync(this.fd, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EAGAIN') {
          this.timer = setTimeout(() => this.flush(), this.retryMs);
          this.retryMs = Math.min(this.retryMs * 2, INPUT_RETRY_MAX_MS);
          return;
        }
        // EIO/EBADF: the terminal is gone; its input has nowhere to go.
        this.queue.length = 0;
        this.queuedBytes = 0;
        return;
      }
      this.retryMs = INPUT_RETRY_MIN_MS;
      this.queuedBytes -= written;
      if (written < chunk.length) this.queue[0] = chunk.subarray(written);
      else this.queue.shift();
    }
  }
}

/** Reads what is queued on the master. Returns true if the slave is still open somewhere. */
function drainMaster(fd: number, onData: (chunk: Buffer) => void): boolean {
  const scratch = Buffer.allocUnsafe(DRAIN_BUFFER_BYTES);
  let drained = 0;
  while (drained < MAX_DRAIN_BYTES) {
    let bytes: number;
    try {
      bytes = readSync(fd, scratch, 0, scratch.length, null);
    } catch (error) {
      // EIO: the slave is closed and nothing is queued. EAGAIN: nothing is
      // queued right now but someone still holds the slave.
      return (error as NodeJS.ErrnoException).code !== 'EIO';
    }
    if (bytes <= 0) return false;
    drained += bytes;
    onData(Buffer.from(scratch.subarray(0, bytes)));
  }
  return true;
}
