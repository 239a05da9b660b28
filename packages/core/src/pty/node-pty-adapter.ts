// Every reach past node-pty's public API, and into Node's sockets, checked once against what it should be.
import { fstatSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Socket } from 'node:net';
import type * as nodePty from 'node-pty';

/**
 * The private parts ptydeck uses, why, and what happens without each.
 *
 * node-pty is pinned exactly (packages/core/package.json) and these are read
 * from its lib/unixTerminal.js; Node's from lib/net.js and
 * lib/internal/stream_base_commons.js. node-pty-adapter.test.ts runs the check
 * on a real terminal and fails if any of them moved.
 *
 * - node-pty's `_fd`, the master's fd: input is written to it with write(2)
 *   (pty-process.ts, MasterInput), it is drained at close and lent to the read
 *   thread. Fallback: node-pty's `fd` getter (on UnixTerminal, not in its
 *   typings), the same number; nothing is lost.
 * - node-pty's `_socket`, the tty.ReadStream node-pty reads the master through:
 *   every close of the master goes through its destroy(), which is wrapped so
 *   that the master is drained first (node-pty loses the tail of the output at
 *   exit, see pty-process.ts) and input stops before the fd number is free for
 *   reuse. No public API replaces it: without it the tail of the output would
 *   be lost and input could be typed into the next terminal given that fd
 *   number (node-pty's own write() retries by number after close), so, failing
 *   safe, no terminal is opened.
 * - Node's `_handle.readStop()/readStart()` and `_handle.reading` on that
 *   socket, and its `_read()`: they stop libuv's read of the master at once,
 *   and keep Readable from restarting it, so the read thread can take a flood
 *   over without a chunk read after its first. Fallback: node-pty's
 *   pause()/resume() (Readable's pause: with tty.ReadStream's high-water mark
 *   of 0 the socket stops after at most one more chunk). Lost: the read thread
 *   (its handover needs the instant stop), so floods are read on the event
 *   loop, at its speed; order and completeness are kept.
 */
export interface NodePtyInternals {
  /** Where the master's fd is read: node-pty's field, its getter, or nowhere (no terminal can be opened). */
  readonly fd: '_fd' | 'fd getter' | undefined;
  /** Whether node-pty's socket is there: without it no terminal can be opened. */
  readonly socket: boolean;
  /** Whether the event loop's reading can be stopped at once (Node's handle and _read): without it, no read thread. */
  readonly instantStop: boolean;
  /** One line per internal not found, as logged: what replaces it and what is lost. */
  readonly missing: readonly string[];
}

/** A terminal's master, reached past node-pty's public API. */
export interface NodePtyMaster {
  /** The master's fd (it belongs to node-pty's socket, which closes it). */
  readonly fd: number;
  /** Whether the master's socket is destroyed: its fd is closed, or is being closed. */
  readonly destroyed: boolean;
  /**
   * Runs `beforeClose` in place of every close of the master: EOF, a read error,
   * node-pty's own timer after exit, close() here. It runs once; the master
   * closes when it calls `finish`. node-pty emits exit only after that.
   */
  interceptClose(beforeClose: (finish: () => void) => void): void;
  /** Emits, as data, the chunks the socket read and has not emitted yet. */
  emitBuffered(): void;
  /** Closes the master, as libuv's EOF would (through interceptClose's hook). */
  close(error?: Error): void;
  /** The event loop's reading of the master; `mayRead` false keeps a stopped reader from being restarted behind its back. */
  loopReading(mayRead: () => boolean): LoopReading;
}

export interface LoopReading {
  /**
   * True: stop() stops libuv's read at once, no chunk is read after it returns,
   * so another reader (the read thread) may take over. False: the public
   * fallback, after which at most one more chunk arrives; nothing may take over.
   */
  readonly instant: boolean;
  stop(): void;
  start(): void;
}

/** Node's stream handle (a libuv TTY) under a net.Socket. */
interface StreamHandle {
  reading?: boolean;
  readStart(): number;
  readStop(): number;
}

interface UnixTerminalInternals {
  _fd?: unknown;
  fd?: unknown;
  _socket?: unknown;
}

const NODE_PTY = `node-pty ${nodePtyVersion()}`;
const NODE = `Node ${process.version}`;

/** What was found on this process's first terminal; the same node-pty and Node serve every other one. */
let checked: NodePtyInternals | undefined;

/**
 * Checks, on a real terminal, that each private part is what the code expects,
 * and logs one line for each one that is not: what replaces it, what is lost.
 */
export function checkNodePtyInternals(pty: nodePty.IPty, log: (line: string) => void = logToStderr): NodePtyInternals {
  const terminal = pty as unknown as UnixTerminalInternals;
  const missing: string[] = [];
  let fd: NodePtyInternals['fd'];
  if (isMasterFd(terminal._fd)) fd = '_fd';
  else if (isMasterFd(terminal.fd)) {
    fd = 'fd getter';
    missing.push(`${NODE_PTY}: _fd not found; falling back to the fd getter: nothing is lost`);
  } else {
    missing.push(`${NODE_PTY}: _fd and the fd getter not found; no public API gives the master's fd: no terminal can be opened`);
  }
  const socket = terminal._socket instanceof Socket ? terminal._socket : undefined;
  if (!socket) {
    missing.push(
      `${NODE_PTY}: _socket (a net.Socket) not found; no public API replaces it: no terminal can be opened ` +
        '(the tail of the output at exit would be lost, and input could reach another terminal)',
    );
  }
  let instantStop = false;
  if (socket) {
    const absent = [isStreamHandle(handleOf(socket)) ? '' : '_handle.readStart/readStop', typeof socket._read === 'function' ? '' : '_read'].filter(Boolean);
    instantStop = absent.length === 0;
    if (!instantStop) {
      missing.push(
        `${NODE}: net.Socket ${absent.join(' and ')} not found; falling back to node-pty's pause()/resume(): ` +
          'no read thread, floods are read on the event loop',
      );
    }
  }
  for (const line of missing) log(line);
  return { fd, socket: socket !== undefined, instantStop, missing };
}

/** The check, run once, on this process's first terminal. */
function nodePtyInternals(pty: nodePty.IPty): NodePtyInternals {
  checked ??= checkNodePtyInternals(pty);
  return checked;
}

/** The master of a terminal node-pty just spawned. Throws when a part with no public replacement is missing. */
export function nodePtyMaster(pty: nodePty.IPty, internals: NodePtyInternals = nodePtyInternals(pty)): NodePtyMaster {
  const terminal = pty as unknown as UnixTerminalInternals;
  const fd = internals.fd === '_fd' ? terminal._fd : internals.fd === 'fd getter' ? terminal.fd : undefined;
  const socket = internals.socket && terminal._socket instanceof Socket ? terminal._socket : undefined;
  if (typeof fd !== 'number' || !socket) {
    throw new Error(`${NODE_PTY}'s internals changed (${internals.missing.join('; ') || 'a terminal without them'}): see node-pty-adapter.ts`);
  }
  return {
    fd,
    get destroyed() {
      return socket.destroyed;
    },
    interceptClose(beforeClose) {
      const destroy = socket.destroy;
      let closing = false;
      socket.destroy = function closeAfter(this: Socket, error?: Error) {
        if (this.destroyed || closing) return this;
        closing = true;
        beforeClose(() => destroy.call(socket, error));
        return this;
      } as Socket['destroy'];
    },
    emitBuffered() {
      // Chunks already read into the stream but not yet emitted: read() emits them as 'data'.
      while (socket.read() !== null) {
        // emitted through node-pty's 'data' listener
      }
    },
    close: (error) => socket.destroy(error),
    loopReading: (mayRead) => (internals.instantStop ? instantLoopReading(socket, mayRead) : pausedLoopReading(pty, socket)),
  };
}

/**
 * node-pty hands out Buffers when spawned with `encoding: null`, which its
 * typings do not say (they promise strings).
 */
export function onBytes(pty: nodePty.IPty, listener: (chunk: Buffer) => void): nodePty.IDisposable {
  return (pty.onData as unknown as nodePty.IEvent<Buffer>)(listener);
}

/**
 * Stops libuv's read itself (what net.Socket.pause() does for sockets made
 * with `onread`): a paused Readable keeps reading until its buffer passes the
 * high-water mark. The socket's _read() is gated so Readable cannot restart it.
 */
function instantLoopReading(socket: Socket, mayRead: () => boolean): LoopReading {
  const read = socket._read;
  socket._read = function gatedRead(this: Socket, size: number) {
    if (mayRead()) read.call(this, size);
  };
  return {
    instant: true,
    stop() {
      const handle = handleOf(socket);
      if (!handle?.reading) return;
      handle.reading = false;
      handle.readStop();
    },
    start() {
      const handle = handleOf(socket);
      if (socket.destroyed || !handle || handle.reading) return;
      handle.reading = true;
      const error = handle.readStart();
      if (error) socket.destroy(new Error(`cannot read the terminal (libuv error ${error})`));
    },
  };
}

/** The public fallback (see NodePtyInternals' doc): node-pty's pause and resume. */
function pausedLoopReading(pty: nodePty.IPty, socket: Socket): LoopReading {
  return {
    instant: false,
    stop: () => pty.pause(),
    start: () => {
      if (!socket.destroyed) pty.resume();
    },
  };
}

function handleOf(socket: Socket): StreamHandle | undefined {
  const handle = (socket as unknown as { _handle?: StreamHandle | null })._handle;
  return isStreamHandle(handle) ? handle : undefined;
}

function isStreamHandle(handle: unknown): handle is StreamHandle {
  if (typeof handle !== 'object' || handle === null) return false;
  const candidate = handle as Partial<StreamHandle>;
  // `reading` is net.js's own flag, set once it first starts reading (absent before).
  return typeof candidate.readStart === 'function' && typeof candidate.readStop === 'function' && (candidate.reading === undefined || typeof candidate.reading === 'boolean');
}

/** A number naming an open character device: a field that moved to mean something else fails this. */
function isMasterFd(fd: unknown): fd is number {
  if (typeof fd !== 'number' || !Number.isInteger(fd) || fd < 0) return false;
  try {
    return fstatSync(fd).isCharacterDevice();
  } catch {
    return false;
  }
}

function nodePtyVersion(): string {
  try {
    return (createRequire(import.meta.url)('node-pty/package.json') as { version: string }).version;
  } catch {
    return '(version unknown)';
  }
}

function logToStderr(line: string): void {
  process.stderr.write(`ptydeck: ${line}\n`);
}
