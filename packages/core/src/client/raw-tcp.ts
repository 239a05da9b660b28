// A TCP connection over Node's own tcp_wrap binding, for the early connection of `ptydeck ls`, `url`, `status` and `attach`.
import { EventEmitter } from 'node:events';
import { getSystemErrorName } from 'node:util';

/**
 * What a client of the host uses of a socket (host-request.ts's requestJson,
 * web-socket.ts): node:net's Socket has it, and so does RawTcpSocket. A
 * string is written as latin1 (requests and handshakes are ASCII).
 */
export interface ClientSocket extends EventEmitter {
  readonly connecting: boolean;
  readonly destroyed: boolean;
  write(data: string | Uint8Array, encoding: 'latin1'): void;
  write(data: Uint8Array): void;
  end(data?: string | Uint8Array): void;
  destroy(): void;
  unref(): void;
  pause(): void;
  resume(): void;
  setNoDelay(noDelay: boolean): void;
}

/** The parts of Node's internal bindings a RawTcpSocket drives, as net.js and stream_base_commons.js drive them. */
interface Bindings {
  TCP: new (type: number) => TcpHandle;
  TCPConnectWrap: new () => Request;
  ShutdownWrap: new () => Request;
  WriteWrap: new () => Request;
  socketType: number;
  state: Int32Array;
  readBytesOrError: number;
  arrayBufferOffset: number;
  eof: number;
}

interface Request {
  oncomplete?: (status: number) => void;
  handle?: TcpHandle;
  [key: string]: unknown;
}

interface TcpHandle {
  connect(request: Request, address: string, port: number): number;
  connect6(request: Request, address: string, port: number): number;
  readStart(): number;
  readStop(): number;
  setNoDelay(noDelay: boolean): number;
  writeBuffer(request: Request, data: Uint8Array): number;
  writeLatin1String(request: Request, data: string): number;
  shutdown(request: Request): number;
  close(callback: () => void): void;
  unref(): void;
  onread: (arrayBuffer: ArrayBuffer) => void;
}

let bindings: Bindings | null | undefined;

/**
 * Node's tcp_wrap and stream_wrap bindings, when this Node has them as Node
 * 20 to 24 do (each part checked), and process.binding would not warn (it
 * does under --pending-deprecation); null otherwise, and the caller takes
 * node:net. process.binding is deprecated in the documentation only; these
 * two are on its list of bindings it still hands out without a warning.
 */
function nodeBindings(): Bindings | null {
  if (bindings !== undefined) return bindings;
  bindings = null;
  const options = `${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`;
  if (options.includes('--pending-deprecation') || process.env.NODE_PENDING_DEPRECATION === '1') return bindings;
  try {
    const binding = (process as unknown as { binding?: (name: string) => Record<string, unknown> }).binding;
    if (typeof binding !== 'function') return bindings;
    const tcp = binding('tcp_wrap');
    const stream = binding('stream_wrap');
    const uv = binding('uv');
    const { TCP, TCPConnectWrap, constants } = tcp as { TCP?: unknown; TCPConnectWrap?: unknown; constants?: { SOCKET?: unknown } };
    const { ShutdownWrap, WriteWrap, streamBaseState, kReadBytesOrError, kArrayBufferOffset } = stream;
    const methods = ['connect', 'connect6', 'readStart', 'readStop', 'setNoDelay', 'writeBuffer', 'writeLatin1String', 'shutdown', 'close', 'unref'];
    if (
      typeof TCP !== 'function' ||
      typeof TCPConnectWrap !== 'function' ||
      typeof ShutdownWrap !== 'function' ||
      typeof WriteWrap !== 'function' ||
      typeof constants?.SOCKET !== 'number' ||
      !(streamBaseState instanceof Int32Array) ||
      typeof kReadBytesOrError !== 'number' ||
      typeof kArrayBufferOffset !== 'number' ||
      typeof uv.UV_EOF !== 'number' ||
      !methods.every((name) => typeof (TCP.prototype as Record<string, unknown>)[name] === 'function')
    ) {
      return bindings;
    }
    bindings = {
      TCP: TCP as Bindings['TCP'],
      TCPConnectWrap: TCPConnectWrap as Bindings['TCPConnectWrap'],
      ShutdownWrap: ShutdownWrap as Bindings['ShutdownWrap'],
      WriteWrap: WriteWrap as Bindings['WriteWrap'],
      socketType: constants.SOCKET,
      state: streamBaseState,
      readBytesOrError: kReadBytesOrError,
      arrayBufferOffset: kArrayBufferOffset,
      eof: uv.UV_EOF as number,
    };
  } catch {
    bindings = null;
  }
  return bindings;
}

/**
 * A TCP connection to an IP address, or undefined where Node's bindings are
 * not as expected (nodeBindings). It emits what its clients listen for
 * ('connect', 'data', 'end', 'error', then 'close' once; the server's FIN
 * ends it, as node:net's allowHalfOpen: false) and queues what is written
 * before it connects; paused, it reads nothing from the kernel. node:net loads node:stream and a score of
 * modules Node compiles at first use: about 3 ms of CPU of a short command
 * whose whole start is 40 (bench figure 12), and before its connection opens.
 */
export function connectRawTcp(port: number, address: string): RawTcpSocket | undefined {
  const found = nodeBindings();
  return found ? new RawTcpSocket(found, port, address) : undefined;
}

export class RawTcpSocket extends EventEmitter implements ClientSocket {
  private readonly handle: TcpHandle;
  private pending: Array<string | Uint8Array> = [];
  private ending = false;
  private closed = false;
  private paused = false;
  private reading = false;
  private noDelay = false;
  connecting = true;
  destroyed = false;

  constructor(
    private readonly bindings: Bindings,
    port: number,
    address: string,
  ) {
    super();
    this.handle = new bindings.TCP(bindings.socketType);
    const request = new bindings.TCPConnectWrap();
    request.oncomplete = (status) => this.connected(status);
    request.address = address;
    request.port = port;
    const error = address.includes(':') ? this.handle.connect6(request, address, port) : this.handle.connect(request, address, port);
    if (error !== 0) process.nextTick(() => this.fail(error, 'connect'));
  }

  /** Written once connected, in order; a string as latin1, each character one byte. */
  write(data: string | Uint8Array, _encoding?: 'latin1'): void {
    if (this.destroyed) return;
    if (this.connecting) {
      this.pending.push(data);
      return;
    }
    const request = new this.bindings.WriteWrap();
    request.handle = this.handle;
    // A write the kernel could not take at once completes later from the buffer's own memory: the request holds
    // the buffer until then, as stream_base_commons.js's handleWriteReq does (req.buffer), or GC could free it.
    request.buffer = data;
    request.oncomplete = (status) => {
      if (status < 0) this.fail(status, 'write');
    };
    const error = typeof data === 'string' ? this.handle.writeLatin1String(request, data) : this.handle.writeBuffer(request, data);
    if (error !== 0) this.fail(error, 'write');
  }

  /** Writes `data`, then this side's FIN (libuv's shutdown waits for the writes before it). */
  end(data?: string | Uint8Array): void {
    if (data !== undefined) this.write(data);
    if (this.ending) return;
    this.ending = true;
    if (!this.connecting) this.shutdown();
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.connecting = false;
    this.pending = [];
    this.handle.onread = ignoreRead;
    this.handle.close(() => {
      this.closed = true;
      this.emit('close');
    });
  }

  unref(): void {
    if (!this.closed) this.handle.unref();
  }

  pause(): void {
    this.paused = true;
    this.readWhileWanted();
  }

  resume(): void {
    this.paused = false;
    this.readWhileWanted();
  }

  setNoDelay(noDelay: boolean): void {
    this.noDelay = noDelay;
    if (!this.connecting && !this.destroyed) this.handle.setNoDelay(noDelay);
  }

  /** Reads from the kernel while connected, open and not paused. */
  private readWhileWanted(): void {
    const want = !this.connecting && !this.destroyed && !this.paused;
    if (want === this.reading) return;
    this.reading = want;
    const error = want ? this.handle.readStart() : this.handle.readStop();
    if (error !== 0) this.fail(error, 'read');
  }

  private connected(status: number): void {
    if (this.destroyed) return;
    if (status < 0) return this.fail(status, 'connect');
    this.connecting = false;
    this.handle.onread = (arrayBuffer) => this.read(arrayBuffer);
    if (this.noDelay) this.handle.setNoDelay(true);
    this.readWhileWanted();
    if (this.destroyed) return;
    // What was written while connecting goes first, as node:net sends it, then what 'connect' listeners write.
    for (const data of this.pending.splice(0)) this.write(data);
    if (this.ending) this.shutdown();
    this.emit('connect');
  }

  private shutdown(): void {
    if (this.destroyed) return;
    const request = new this.bindings.ShutdownWrap();
    request.handle = this.handle;
    request.oncomplete = () => {};
    // As net.js: 1 is a shutdown done at once, and a peer already gone is no error of this side's.
    const error = this.handle.shutdown(request);
    if (error !== 0 && error !== 1 && errorName(error) !== 'ENOTCONN') this.fail(error, 'shutdown');
  }

  /** As stream_base_commons.js's onStreamRead: the count (or error) and the offset are in the binding's shared state. */
  private read(arrayBuffer: ArrayBuffer): void {
    const { state, readBytesOrError, arrayBufferOffset, eof } = this.bindings;
    const count = state[readBytesOrError]!;
    if (this.destroyed || count === 0) return;
    if (count > 0) {
      this.emit('data', Buffer.from(arrayBuffer, state[arrayBufferOffset]!, count));
      return;
    }
    if (count !== eof) return this.fail(count, 'read');
    this.paused = true;
    this.readWhileWanted();
    this.emit('end');
    this.destroy();
  }

  private fail(status: number, what: string): void {
    if (this.destroyed) return;
    const name = errorName(status);
    this.emit('error', Object.assign(new Error(`${what} ${name}`), { code: name, errno: status }));
    this.destroy();
  }
}

/** The binding asserts that onread is a function. */
function ignoreRead(): void {}

function errorName(status: number): string {
  try {
    return getSystemErrorName(status);
  } catch {
    return `error ${status}`;
  }
}
