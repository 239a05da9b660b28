// A WebSocket client over a TCP socket (node:net's, or raw-tcp.ts's) for the CLI's panel socket: RFC 6455's opening handshake and framing, no more.
import type { ClientSocket } from './raw-tcp.js';
import { Emitter, type OnEvent } from '@ptydeck/contract';
import { connectTo, parseHead, requestHead } from './host-request.js';
import { clientFrame, closePayload, CLOSE_NORMAL, FrameError, FrameReader, Opcode } from './ws-frames.js';
import { kernelRandomBytes } from '../common/random-hex.js';
import { sha1 } from '../common/sha1.js';

/** Section 1.3: what the server hashes with the client's key to show it understood the handshake. */
const ACCEPT_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
/** The largest refusal (status, headers, body) read before giving up on it. */
const MAX_REFUSAL_BYTES = 64 * 1024;
/** How long a close waits for the server's close frame before it cuts the connection. */
const CLOSE_WAIT_MS = 1000;
/** The code a close reports when no close frame came (section 7.4.1: abnormal closure). */
const CLOSE_ABNORMAL = 1006;

export interface WebSocketOptions {
  /** Offered in Sec-WebSocket-Protocol; the server must pick one of them. */
  protocols: readonly string[];
  headers?: Record<string, string>;
  /** From connect to the server's 101. */
  timeoutMs: number;
  /** The largest message taken; a larger one fails the connection. */
  maxMessage: number;
}

/** The server answered the handshake with something other than 101: its status, headers and body (text). */
export class UpgradeRefused extends Error {
  override readonly name = 'UpgradeRefused';
  constructor(
    readonly status: number,
    readonly headers: Record<string, string>,
    readonly body: string,
  ) {
    super(`HTTP ${status}${body.trim() ? `: ${body.trim().split('\n')[0]}` : ''}`);
  }
}

/**
 * An open WebSocket of this client. `ws` costs a short-lived client (`ptydeck
 * attach`) its load and its own start (bench figure 12) for one connection to
 * the local host; this speaks what that connection needs: text and binary
 * messages, fragmented or not, pings answered, the close handshake both ways,
 * and nothing agreed beyond (no extension, so no compression).
 */
export class ClientWebSocket {
  private readonly messageEmitter = new Emitter<{ data: Buffer; binary: boolean }>({ name: 'web socket message' });
  private readonly closeEmitter = new Emitter<{ code: number; reason: string }>({ name: 'web socket close' });
  private readonly pongEmitter = new Emitter<Buffer>({ name: 'web socket pong' });
  /**
   * Every message, whole: fragments joined, text as its UTF-8 bytes. Nothing
   * is read before the first listener of any event here (and the task that
   * added it) is there: what came with the 101 (the panel's snapshot, often)
   * is not lost.
   */
  readonly onMessage: OnEvent<{ data: Buffer; binary: boolean }> = this.reading(this.messageEmitter.on);
  /** Once, when the connection is gone: the server's close code and reason, or 1006 when none came. */
  readonly onClose: OnEvent<{ code: number; reason: string }> = this.reading(this.closeEmitter.on);
  readonly onPong: OnEvent<Buffer> = this.reading(this.pongEmitter.on);
  private readStarted = false;
  private startReading!: () => void;
  private closeSent = false;
  private received: { code: number; reason: string } | undefined;
  private closeTimer: NodeJS.Timeout | undefined;

  /** @internal openWebSocket makes these. */
  constructor(
    private readonly socket: ClientSocket,
    /** The 101's headers, names in lower case. */
    readonly headers: Record<string, string>,
    /** The subprotocol the server chose. */
    readonly protocol: string,
    rest: Buffer,
    maxMessage: number,
  ) {
    const reader = new FrameReader(
      {
        message: (data, binary) => this.messageEmitter.fire({ data, binary }),
        ping: (payload) => this.write(Opcode.Pong, payload),
        pong: (payload) => this.pongEmitter.fire(payload),
        close: (code, reason) => this.closeReceived(code, reason),
      },
      maxMessage,
    );
    const read = (chunk: Buffer) => {
      try {
        reader.write(chunk);
      } catch (error) {
        // A server out of protocol: say why in the close frame, then cut (section 7.1.7).
        const code = error instanceof FrameError ? error.code : CLOSE_NORMAL;
        this.received ??= { code: CLOSE_ABNORMAL, reason: (error as Error).message };
        this.close(code, (error as Error).message);
        socket.destroy();
      }
    };
    this.startReading = () => {
      if (rest.length > 0) read(rest);
      socket.on('data', read);
      socket.resume();
    };
    socket.on('error', () => undefined); // 'close' follows and says it.
    socket.once('close', () => {
      clearTimeout(this.closeTimer);
      this.closeEmitter.fire(this.received ?? { code: CLOSE_ABNORMAL, reason: '' });
    });
    // Keys go out as typed, not held back to fill a segment.
    socket.setNoDelay(true);
  }

  /** `on`, which starts reading once it has a listener. */
  private reading<T>(on: OnEvent<T>): OnEvent<T> {
    return (listener) => {
      const off = on(listener);
      if (!this.readStarted) {
        this.readStarted = true;
        queueMicrotask(() => this.startReading());
      }
      return off;
    };
  }

  /** Whether messages may still be sent: open, and no close sent. */
  get isOpen(): boolean {
    return !this.closeSent && !this.socket.destroyed;
  }

  /** A string goes as a text message, bytes as a binary one. Nothing goes once a close was sent. */
  send(data: string | Uint8Array): void {
    if (!this.isOpen) return;
    if (typeof data === 'string') this.write(Opcode.Text, Buffer.from(data, 'utf8'));
    else this.write(Opcode.Binary, data);
  }

  ping(payload: Uint8Array = Buffer.alloc(0)): void {
    if (this.isOpen) this.write(Opcode.Ping, payload);
  }

  /** Starts the close handshake; the connection ends once the server answers, or after CLOSE_WAIT_MS. */
  close(code = CLOSE_NORMAL, reason = ''): void {
    if (this.closeSent || this.socket.destroyed) return;
    this.closeSent = true;
    this.write(Opcode.Close, closePayload(code, reason));
    this.closeTimer = setTimeout(() => this.socket.destroy(), CLOSE_WAIT_MS);
    this.closeTimer.unref();
  }

  /** Cuts the connection at once. */
  terminate(): void {
    this.socket.destroy();
  }

  private closeReceived(code: number, reason: string): void {
    this.received ??= { code, reason };
    // The answer to ours, or the server's own: answered with its code (section 5.5.1), and the server closes TCP.
    if (!this.closeSent) {
      this.closeSent = true;
      this.write(Opcode.Close, closePayload(code === 1005 ? CLOSE_NORMAL : code));
    }
    this.socket.end();
  }

  private write(opcode: Opcode, payload: Uint8Array): void {
    if (!this.socket.destroyed) this.socket.write(clientFrame(opcode, payload));
  }
}

/**
 * Opens a WebSocket to `url` (ws://): the opening handshake of section 4.1,
 * checked as a client must (101, Upgrade, Connection, the accept hash, a
 * subprotocol it offered). Rejects with UpgradeRefused when the server answers
 * anything else, with an Error when it cannot be reached, breaks the
 * handshake, or does not answer within `timeoutMs`.
 */
export function openWebSocket(url: URL, options: WebSocketOptions): Promise<ClientWebSocket> {
  if (url.protocol !== 'ws:') return Promise.reject(new Error(`not a ws:// address: ${url.href}`));
  const key = kernelRandomBytes(16).toString('base64');
  let head: string;
  try {
    head = requestHead('GET', url, {
      Host: url.host,
      Upgrade: 'websocket',
      Connection: 'Upgrade',
      'Sec-WebSocket-Key': key,
      'Sec-WebSocket-Version': '13',
      ...(options.protocols.length > 0 ? { 'Sec-WebSocket-Protocol': options.protocols.join(', ') } : {}),
      ...options.headers,
    });
  } catch (error) {
    return Promise.reject(error as Error);
  }
  let accept: string | undefined;
  /** The Sec-WebSocket-Accept a server that read this key answers (section 4.2.2). */
  const expectedAccept = () => (accept ??= sha1(Buffer.from(key + ACCEPT_GUID, 'latin1')).toString('base64'));
  return new Promise((resolve, reject) => {
    const socket = connectTo(url);
    let received = Buffer.alloc(0);
    let refusal: { status: number; headers: Record<string, string>; length: number } | undefined;
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    };
    const timer = setTimeout(() => fail(new Error(`no handshake within ${options.timeoutMs} ms`)), options.timeoutMs);
    const refused = () => {
      const { status, headers, length } = refusal!;
      const declared = Number(headers['content-length']);
      const body = received.subarray(length, Number.isSafeInteger(declared) && declared >= 0 ? length + declared : undefined);
      fail(new UpgradeRefused(status, headers, body.toString('utf8')));
    };
    const onData = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (received.length > MAX_REFUSAL_BYTES) return fail(new Error(`answered the handshake with more than ${MAX_REFUSAL_BYTES} bytes`));
      if (refusal) return;
      let parsed;
      try {
        parsed = parseHead(received);
      } catch (error) {
        return fail(error as Error);
      }
      if (!parsed) return;
      if (parsed.status !== 101) {
        // The body says why; read it to its length or the server's close.
        refusal = parsed;
        const declared = Number(parsed.headers['content-length']);
        if (Number.isSafeInteger(declared) && received.length >= parsed.length + declared) refused();
        return;
      }
      const problem = handshakeProblem(parsed.headers, expectedAccept(), options.protocols);
      if (problem) return fail(new Error(`broke the WebSocket handshake: ${problem}`));
      settled = true;
      clearTimeout(timer);
      // Held until the first listener (ClientWebSocket.reading).
      socket.pause();
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.off('close', onEnd);
      socket.off('error', fail);
      resolve(new ClientWebSocket(socket, parsed.headers, parsed.headers['sec-websocket-protocol'] ?? '', received.subarray(parsed.length), options.maxMessage));
    };
    const onEnd = () => (refusal ? refused() : fail(new Error('the connection closed during the WebSocket handshake')));
    socket.once('connect', () => {
      socket.write(head, 'latin1');
      // Hashed while the server reads the handshake, not once its answer came.
      expectedAccept();
    });
    socket.on('data', onData);
    socket.once('end', onEnd);
    socket.once('close', onEnd);
    socket.once('error', fail);
  });
}

/** What is wrong with a 101's headers, or undefined. */
function handshakeProblem(headers: Record<string, string>, accept: string, offered: readonly string[]): string | undefined {
  if (headers.upgrade?.toLowerCase() !== 'websocket') return 'no Upgrade: websocket';
  if (!headers.connection?.toLowerCase().split(/\s*,\s*/).includes('upgrade')) return 'no Connection: Upgrade';
  if (headers['sec-websocket-accept'] !== accept) return 'a wrong Sec-WebSocket-Accept';
  if (headers['sec-websocket-extensions'] !== undefined) return 'an extension this client never offered';
  const protocol = headers['sec-websocket-protocol'];
  if (offered.length > 0 ? protocol === undefined || !offered.includes(protocol) : protocol !== undefined) return 'a subprotocol this client never offered';
  return undefined;
}
