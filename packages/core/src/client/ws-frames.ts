// RFC 6455 framing as a client speaks it: masked frames out, a server's frames read back into messages.
import { kernelRandomBytes } from '../common/random-hex.js';

export const Opcode = { Continuation: 0x0, Text: 0x1, Binary: 0x2, Close: 0x8, Ping: 0x9, Pong: 0xa } as const;
export type Opcode = (typeof Opcode)[keyof typeof Opcode];

/** Close codes this client sends or reads (RFC 6455 section 7.4.1). */
export const CLOSE_NORMAL = 1000;
export const CLOSE_PROTOCOL_ERROR = 1002;
export const CLOSE_TOO_BIG = 1009;
/** Received when a close frame carried no code. */
export const CLOSE_NO_STATUS = 1005;

/** One frame a client sends: always masked (section 5.3), a server closes on an unmasked one. */
export function clientFrame(opcode: Opcode, payload: Uint8Array, fin = true): Buffer {
  const length = payload.length;
  const lengthBytes = length < 126 ? 0 : length < 0x10000 ? 2 : 8;
  const frame = Buffer.allocUnsafe(2 + lengthBytes + 4 + length);
  frame[0] = (fin ? 0x80 : 0) | opcode;
  frame[1] = 0x80 | (lengthBytes === 0 ? length : lengthBytes === 2 ? 126 : 127);
  if (lengthBytes === 2) frame.writeUInt16BE(length, 2);
  else if (lengthBytes === 8) frame.writeBigUInt64BE(BigInt(length), 2);
  const maskAt = 2 + lengthBytes;
  writeMaskKey(frame, maskAt);
  for (let i = 0; i < length; i++) frame[maskAt + 4 + i] = payload[i]! ^ frame[maskAt + (i & 3)]!;
  return frame;
}

/** Random bytes for masks, read from the kernel a few hundred at a time: node:crypto is not loaded for them (common/sha1.ts says why). */
let maskPool: Buffer = Buffer.alloc(0);
let maskPoolAt = 0;

/**
 * A fresh 4-byte masking key (section 5.3: a client must not let a server
 * predict it), written into `frame` at `at` byte by byte: Buffer#copy's
 * first call was a tenth of a millisecond of `attach`'s first frame.
 */
function writeMaskKey(frame: Buffer, at: number): void {
  if (maskPoolAt + 4 > maskPool.length) {
    maskPool = kernelRandomBytes(256);
    maskPoolAt = 0;
  }
  for (let i = 0; i < 4; i++) frame[at + i] = maskPool[maskPoolAt + i]!;
  maskPoolAt += 4;
}

/** A close frame's payload: the code, then a reason of at most 123 bytes of UTF-8. */
export function closePayload(code: number, reason = ''): Buffer {
  const text = Buffer.from(reason, 'utf8').subarray(0, 123);
  const payload = Buffer.allocUnsafe(2 + text.length);
  payload.writeUInt16BE(code, 0);
  text.copy(payload, 2);
  return payload;
}

/** What the reader hands on: whole messages (fragments joined), and the control frames as they come. */
export interface FrameSink {
  message(data: Buffer, binary: boolean): void;
  ping(payload: Buffer): void;
  pong(payload: Buffer): void;
  close(code: number, reason: string): void;
}

/** A violation of the protocol by the server: the connection is failed with `code`. */
export class FrameError extends Error {
  override readonly name = 'FrameError';
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

/**
 * Reads a server's frames from the bytes as they arrive, in whatever pieces.
 * A server's frames are never masked (section 5.1); control frames may come
 * between a message's fragments and are at most 125 bytes, unfragmented; a
 * message larger than `maxMessage` fails the connection (1009) before it is
 * buffered. Throws a FrameError for anything else out of protocol.
 */
export class FrameReader {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** The message being put together from fragments: its kind and parts so far. */
  private fragments: { binary: boolean; parts: Buffer[]; bytes: number } | undefined;

  constructor(
    private readonly sink: FrameSink,
    private readonly maxMessage: number,
  ) {}

  write(chunk: Buffer): void {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    let buffer = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingBytes);
    let at = 0;
    for (;;) {
      const used = this.frame(buffer, at);
      if (used === 0) break;
      at += used;
    }
    buffer = buffer.subarray(at);
    this.pending = buffer.length > 0 ? [buffer] : [];
    this.pendingBytes = buffer.length;
  }

  /** Reads the frame at `at`; returns how many bytes it took, 0 when it is not all there yet. */
  private frame(buffer: Buffer, at: number): number {
    if (buffer.length - at < 2) return 0;
    const first = buffer[at]!;
    const second = buffer[at + 1]!;
    const fin = (first & 0x80) !== 0;
    const opcode = first & 0x0f;
    if ((first & 0x70) !== 0) throw new FrameError('the server set a reserved bit (no extension was agreed)', CLOSE_PROTOCOL_ERROR);
    if ((second & 0x80) !== 0) throw new FrameError('the server masked a frame', CLOSE_PROTOCOL_ERROR);
    let length = second & 0x7f;
    let head = 2;
    if (length === 126) {
      if (buffer.length - at < 4) return 0;
      length = buffer.readUInt16BE(at + 2);
      head = 4;
    } else if (length === 127) {
      if (buffer.length - at < 10) return 0;
      const long = buffer.readBigUInt64BE(at + 2);
      if (long > BigInt(this.maxMessage)) throw new FrameError(`the server sent a frame of ${long} bytes`, CLOSE_TOO_BIG);
      length = Number(long);
      head = 10;
    }
    const control = opcode >= 0x8;
    if (control && (!fin || length > 125)) throw new FrameError('the server sent a fragmented or oversized control frame', CLOSE_PROTOCOL_ERROR);
    const sofar = control ? 0 : (this.fragments?.bytes ?? 0);
    if (sofar + length > this.maxMessage) throw new FrameError(`the server sent a message over ${this.maxMessage} bytes`, CLOSE_TOO_BIG);
    if (buffer.length - at < head + length) return 0;
    // A copy: the buffer it came in is reused for the next reads.
    const payload = Buffer.from(buffer.subarray(at + head, at + head + length));
    this.dispatch(opcode, fin, payload);
    return head + length;
  }

  private dispatch(opcode: number, fin: boolean, payload: Buffer): void {
    switch (opcode) {
      case Opcode.Text:
      case Opcode.Binary: {
        if (this.fragments) throw new FrameError('the server began a message inside another', CLOSE_PROTOCOL_ERROR);
        if (fin) return this.sink.message(payload, opcode === Opcode.Binary);
        this.fragments = { binary: opcode === Opcode.Binary, parts: [payload], bytes: payload.length };
        return;
      }
      case Opcode.Continuation: {
        const fragments = this.fragments;
        if (!fragments) throw new FrameError('the server continued a message it never began', CLOSE_PROTOCOL_ERROR);
        fragments.parts.push(payload);
        fragments.bytes += payload.length;
        if (!fin) return;
        this.fragments = undefined;
        return this.sink.message(Buffer.concat(fragments.parts, fragments.bytes), fragments.binary);
      }
      case Opcode.Ping:
        return this.sink.ping(payload);
      case Opcode.Pong:
        return this.sink.pong(payload);
      case Opcode.Close: {
        if (payload.length === 1) throw new FrameError('the server sent a close frame of one byte', CLOSE_PROTOCOL_ERROR);
        const code = payload.length >= 2 ? payload.readUInt16BE(0) : CLOSE_NO_STATUS;
        return this.sink.close(code, payload.subarray(2).toString('utf8'));
      }
      default:
        throw new FrameError(`the server sent an unknown opcode ${opcode}`, CLOSE_PROTOCOL_ERROR);
    }
  }
}
