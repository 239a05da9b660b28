// A WebSocket client that reads into one buffer it reuses, shaped like the `ws` WebSocket that PanelClient
// drives (events 'open', 'message' (data, isBinary), 'error', 'close'; send, close, terminate, readyState).
// Figure 2's client read a flood through `ws`: every socket read a new 64 KiB buffer, and every frame that
// spanned two reads another, which started a mark-compact of the bench process every 64 MB of them
// (V8's external memory limit): 1 to 3 ms of the client's CPU per MB delivered, on the two cores the
// core and the raw reader's pipeline share (bench/README.md, "What moved the figures"). Here a socket
// read lands in one buffer (net's `onread`), a frame inside it is handed on as a view of it, and only a
// frame split across reads is copied, into a held buffer reused too. A message's data is valid only during
// its 'message' call (PanelClient reads each at once). Only what a panel's connection needs: unfragmented
// or fragmented text and binary messages from the server, pings, close; client messages are masked text.
import { createHash, randomBytes, randomFillSync } from 'node:crypto';
import { EventEmitter } from 'node:events';
import net from 'node:net';

const CONNECTING = 0;
const OPEN = 1;
const CLOSING = 2;
const CLOSED = 3;
const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const READ_BYTES = 256 * 1024;
/** Fresh mask keys, refilled when used up: a key per message sent. */
const MASK_POOL = 4 * 1024;

export class LeanSocket extends EventEmitter {
  CONNECTING = CONNECTING;
  OPEN = OPEN;
  CLOSING = CLOSING;
  CLOSED = CLOSED;
  readyState = CONNECTING;
  binaryType = 'nodebuffer';
  /** Bytes of a frame split across reads, and the buffer that holds them. */
  held = 0;
  heldBuffer = Buffer.allocUnsafe(128 * 1024);
  /** A fragmented message's parts so far (rare: the server sends whole messages). */
  fragments = null;
  fragmentsBinary = false;
  masks = Buffer.allocUnsafe(MASK_POOL);
  maskAt = MASK_POOL;

  /**
   * @param {string} url ws://host:port/path
   * @param {string[]} protocols subprotocols to offer
   * @param {{ headers?: Record<string, string>, open?: { write, end, destroy } }} options `open`: a stand-in
   *   for a socket past its handshake (tests feed `read` by hand); nothing is connected then
   */
  constructor(url, protocols = [], options = {}) {
    super();
    if (options.open) {
      this.socket = options.open;
      this.readyState = OPEN;
      return;
    }
    const { hostname, port, pathname, search } = new URL(url);
    this.key = randomBytes(16).toString('base64');
    this.handshake = '';
    const readBuffer = Buffer.allocUnsafe(READ_BYTES);
    this.socket = net.connect({
      host: hostname,
      port: Number(port),
      onread: {
        buffer: readBuffer,
        callback: (bytes, buffer) => {
          try {
            this.read(buffer.subarray(0, bytes));
          } catch (error) {
            this.fail(error);
          }
        },
      },
    });
    this.socket.setNoDelay(true);
    this.socket.on('connect', () => {
      const headers = {
        Host: `${hostname}:${port}`,
        Upgrade: 'websocket',
        Connection: 'Upgrade',
        'Sec-WebSocket-Key': this.key,
        'Sec-WebSocket-Version': '13',
        ...(protocols.length > 0 ? { 'Sec-WebSocket-Protocol': protocols.join(', ') } : {}),
        ...options.headers,
      };
      const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
      this.socket.write(`GET ${pathname}${search} HTTP/1.1\r\n${lines.join('')}\r\n`);
    });
    this.socket.on('error', (error) => this.fail(error));
    this.socket.on('close', () => {
      const wasOpen = this.readyState !== CLOSED;
      this.readyState = CLOSED;
      if (wasOpen) this.emit('close');
    });
  }

  send(text) {
    if (this.readyState !== OPEN) return;
    this.socket.write(this.frame(0x1, Buffer.from(text)));
  }

  close() {
    if (this.readyState !== OPEN) {
      this.terminate();
      return;
    }
    this.readyState = CLOSING;
    this.socket.write(this.frame(0x8, Buffer.from([0x03, 0xe8])));
    this.socket.end();
  }

  terminate() {
    this.socket.destroy();
  }

  fail(error) {
    this.emit('error', error);
    this.socket.destroy();
  }

  /** Bytes from the socket, in the reused read buffer: the HTTP answer first, then frames. */
  read(chunk) {
    if (this.readyState === CONNECTING) {
      this.handshake += chunk.toString('latin1');
      const end = this.handshake.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = this.handshake.slice(0, end);
      const rest = Buffer.from(this.handshake.slice(end + 4), 'latin1');
      this.handshake = '';
      const accept = createHash('sha1').update(this.key + GUID).digest('base64');
      if (!/^HTTP\/1\.1 101 /.test(head) || !new RegExp(`\r\nsec-websocket-accept: *${accept.replace(/[+/=]/g, '\\$&')}\r?$`, 'im').test(head)) {
        throw new Error(`WebSocket upgrade refused: ${head.split('\r\n')[0]}`);
      }
      this.readyState = OPEN;
      this.emit('open');
      if (rest.length > 0) this.frames(rest);
      return;
    }
    this.frames(chunk);
  }

  /** Hands on every whole frame in `chunk`, first completing one held from earlier reads. */
  frames(chunk) {
    let offset = 0;
    while (this.held > 0) {
      const needed = frameBytes(this.heldBuffer, this.held);
      if (this.held >= needed.total && needed.known) break;
      const take = Math.min(needed.total - this.held, chunk.length - offset);
      this.hold(chunk, offset, take);
      offset += take;
      if (this.held < needed.total) return;
      if (needed.known) break;
    }
    if (this.held > 0) {
      const { total, headBytes } = frameBytes(this.heldBuffer, this.held);
      this.held = 0;
      this.frameDone(this.heldBuffer, 0, headBytes, total);
    }
    while (offset < chunk.length) {
      const { total, headBytes, known } = frameBytes(chunk.subarray(offset), chunk.length - offset);
      if (!known || offset + total > chunk.length) {
        this.hold(chunk, offset, chunk.length - offset);
        return;
      }
      this.frameDone(chunk, offset, headBytes, total);
      offset += total;
      if (this.readyState === CLOSED) return;
    }
  }

  hold(chunk, offset, bytes) {
    if (this.held + bytes > this.heldBuffer.length) {
      const bigger = Buffer.allocUnsafe(Math.max(2 * this.heldBuffer.length, this.held + bytes));
      this.heldBuffer.copy(bigger, 0, 0, this.held);
      this.heldBuffer = bigger;
    }
    chunk.copy(this.heldBuffer, this.held, offset, offset + bytes);
    this.held += bytes;
  }

  frameDone(buffer, offset, headBytes, total) {
    const fin = (buffer[offset] & 0x80) !== 0;
    const opcode = buffer[offset] & 0x0f;
    if ((buffer[offset + 1] & 0x80) !== 0) throw new Error('a masked frame from the server');
    const payload = buffer.subarray(offset + headBytes, offset + total);
    if (opcode === 0x8) {
      if (this.readyState === OPEN) this.socket.write(this.frame(0x8, Buffer.from(payload)));
      this.readyState = CLOSING;
      this.socket.end();
      return;
    }
    if (opcode === 0x9) {
      this.socket.write(this.frame(0xa, Buffer.from(payload)));
      return;
    }
    if (opcode === 0xa) return;
    if (opcode !== 0x0 && opcode !== 0x1 && opcode !== 0x2) throw new Error(`unknown WebSocket opcode ${opcode}`);
    if (fin && opcode !== 0x0) {
      this.emit('message', payload, opcode === 0x2);
      return;
    }
    if (opcode !== 0x0) {
      this.fragments = [];
      this.fragmentsBinary = opcode === 0x2;
    }
    if (!this.fragments) throw new Error('a continuation frame outside a message');
    this.fragments.push(Buffer.from(payload));
    if (!fin) return;
    const message = Buffer.concat(this.fragments);
    this.fragments = null;
    this.emit('message', message, this.fragmentsBinary);
  }

  /** A masked frame of `payload` (a client's frames are masked, RFC 6455 5.3). */
  frame(opcode, payload) {
    const length = payload.length;
    const lengthBytes = length < 126 ? 0 : length < 65536 ? 2 : 8;
    const frame = Buffer.allocUnsafe(2 + lengthBytes + 4 + length);
    frame[0] = 0x80 | opcode;
    frame[1] = 0x80 | (lengthBytes === 0 ? length : lengthBytes === 2 ? 126 : 127);
    if (lengthBytes === 2) frame.writeUInt16BE(length, 2);
    if (lengthBytes === 8) frame.writeBigUInt64BE(BigInt(length), 2);
    if (this.maskAt + 4 > MASK_POOL) {
      randomFillSync(this.masks);
      this.maskAt = 0;
    }
    const maskAt = 2 + lengthBytes;
    this.masks.copy(frame, maskAt, this.maskAt, this.maskAt + 4);
    this.maskAt += 4;
    for (let i = 0; i < length; i++) frame[maskAt + 4 + i] = payload[i] ^ frame[maskAt + (i & 3)];
    return frame;
  }
}

/**
 * How long the frame starting at `buffer[0]` is, from its first `available`
 * bytes: `known` once its head is all there (then `total` is head and payload),
 * otherwise `total` is how many bytes to hold before asking again.
 */
function frameBytes(buffer, available) {
  if (available < 2) return { known: false, total: 2, headBytes: 0 };
  const short = buffer[1] & 0x7f;
  const maskBytes = (buffer[1] & 0x80) !== 0 ? 4 : 0;
  const headBytes = 2 + (short === 126 ? 2 : short === 127 ? 8 : 0) + maskBytes;
  if (available < headBytes) return { known: false, total: headBytes, headBytes };
  const length = short === 126 ? buffer.readUInt16BE(2) : short === 127 ? Number(buffer.readBigUInt64BE(2)) : short;
  return { known: true, total: headBytes + length, headBytes };
}
