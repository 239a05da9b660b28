// The panel protocol's messages on a byte stream (ssh's stdio): each one a kind, a length and its bytes.

/** A panel control message (JSON text) or an output frame (binary), as the WebSocket carried it. */
export const enum ChannelKind {
  Text = 0,
  Binary = 1,
}

const HEAD = 5;
/** Largest message either end accepts: the panel socket's own limit (a 1 Mi-character paste, JSON-escaped). */
export const MAX_CHANNEL_MESSAGE = 8 * 1024 * 1024;

/** One message's bytes on the stream: [u8 kind][u32 BE length][payload]. */
export function channelFrame(kind: ChannelKind, payload: Uint8Array | string): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  const frame = Buffer.allocUnsafe(HEAD + body.length);
  frame[0] = kind;
  frame.writeUInt32BE(body.length, 1);
  frame.set(body, HEAD);
  return frame;
}

/**
 * Writes messages to a byte stream, every message of one turn in one write:
 * a keystroke's `input` and an `ack`, or an output frame and the event that
 * follows it, cross ssh as one read and one packet instead of one each, and
 * each payload is copied once (into the batch) rather than into a frame and
 * again into the stream.
 */
export class ChannelWriter {
  private pending: { kind: ChannelKind; body: Uint8Array }[] = [];
  private bytes = 0;
  private scheduled = false;

  /** @param sink takes one batch; returns false when the stream's buffer is full (as Writable.write does). */
  constructor(private readonly sink: (batch: Buffer) => boolean) {}

  /** Queues a message for this turn's batch (written in a microtask, after the turn's other messages). */
  write(kind: ChannelKind, payload: Uint8Array | string): void {
    const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
    this.pending.push({ kind, body });
    this.bytes += HEAD + body.length;
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => this.flush());
  }

  /** Writes what is queued now; the sink's verdict, or true when nothing was queued. */
  flush(): boolean {
    this.scheduled = false;
    if (this.pending.length === 0) return true;
    const batch = Buffer.allocUnsafe(this.bytes);
    let at = 0;
    for (const { kind, body } of this.pending) {
      batch[at] = kind;
      batch.writeUInt32BE(body.length, at + 1);
      batch.set(body, at + HEAD);
      at += HEAD + body.length;
    }
    this.pending = [];
    this.bytes = 0;
    return this.sink(batch);
  }
}

/**
 * Cuts a byte stream back into messages. Chunks are kept as they come and
 * joined once per message, so a flood of small chunks costs no quadratic copying.
 */
export class ChannelReader {
  private chunks: Buffer[] = [];
  private buffered = 0;

  constructor(private readonly deliver: (kind: ChannelKind, payload: Buffer) => void) {}

  /** Feeds bytes; throws on a message longer than MAX_CHANNEL_MESSAGE or of an unknown kind (the stream is not ours). */
  write(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    while (this.buffered >= HEAD) {
      const head = this.peek(HEAD);
      const kind = head[0]!;
      const length = head.readUInt32BE(1);
      if (kind !== ChannelKind.Text && kind !== ChannelKind.Binary) throw new Error(`not a panel channel: message kind ${kind}`);
      if (length > MAX_CHANNEL_MESSAGE) throw new Error(`panel channel message of ${length} bytes is over the limit`);
      if (this.buffered < HEAD + length) return;
      const whole = this.take(HEAD + length);
      this.deliver(kind, whole.subarray(HEAD));
    }
  }

  private peek(count: number): Buffer {
    if (this.chunks[0]!.length >= count) return this.chunks[0]!;
    const joined = Buffer.concat(this.chunks);
    this.chunks = [joined];
    return joined;
  }

  private take(count: number): Buffer {
    const first = this.chunks[0]!;
    let taken: Buffer;
    if (first.length >= count) taken = first.subarray(0, count);
    else {
      const joined = Buffer.concat(this.chunks);
      this.chunks = [joined];
      taken = joined.subarray(0, count);
    }
    const rest = this.chunks[0]!.subarray(count);
    if (rest.length > 0) this.chunks[0] = rest;
    else this.chunks.shift();
    this.buffered -= count;
    return taken;
  }
}
