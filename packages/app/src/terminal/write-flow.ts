import { ACK_BATCH_BYTES } from '@ptydeck/contract';

/**
 * Tells the server how far one xterm.js terminal has parsed its output.
 *
 * The browser drains the panel socket as fast as frames arrive, so the server
 * cannot see a terminal that parses slower than a flood such as `yes`
 * produces from the socket. It sees these acks instead: it keeps at most a
 * window of unacknowledged output in flight to this terminal and, once the
 * terminal trails the log too far, restores the screen from its mirror rather
 * than stream the backlog. So a prompt after Ctrl-C waits behind a bounded
 * amount of old output, and nothing here needs to queue or drop anything.
 * Acks go in batches: one per `ackBytes` parsed, not one per frame, and at
 * most one per task. xterm.js parses the writes it holds in one task and calls
 * their callbacks one after another, so a flood's frames of up to 64 KiB each
 * were acked one by one, about 16 acks a MB; every ack wakes the core's main
 * thread, on the cores the flood's writer and the core's read thread need
 * (bench/README.md, "Acks once a task"). The ack for the last write parsed in
 * a task goes in a microtask, once that task is done.
 */
export interface WriteFlowOptions {
  /** Hands bytes to the terminal; `parsed` is called once it has processed them. */
  write(data: Uint8Array, parsed: () => void): void;
  /** The terminal has parsed output up to `cursor` (absolute, one past the last byte). */
  ack(cursor: number): void;
  ackBytes?: number;
}

/** The protocol's ack batch (ACK_BATCH_BYTES), which the bench's client uses too. */
export const DEFAULT_ACK_BYTES = ACK_BATCH_BYTES;

export class WriteFlow {
  /** Cursor last acknowledged (or known to the server, after a restore). */
  private acked = 0;
  /** One past the last byte parsed, while its ack waits for the end of the task (undefined: none waits). */
  private parsedTo: number | undefined;
  private readonly ackBytes: number;

  constructor(private readonly options: WriteFlowOptions) {
    this.ackBytes = options.ackBytes ?? DEFAULT_ACK_BYTES;
  }

  /** Output in arrival order; `next` is the cursor one past its last byte. */
  push(data: Uint8Array, next: number): void {
    if (data.length === 0) return;
    this.options.write(data, () => this.parsed(next));
  }

  /**
   * The server restored the screen and continues from `cursor`, counting its
   * window afresh from there. Output queued before the restore still gets
   * parsed, but acks for it would tell the server nothing new.
   */
  restored(cursor: number): void {
    this.acked = cursor;
  }

  private parsed(next: number): void {
    const waiting = this.parsedTo !== undefined;
    this.parsedTo = next;
    if (!waiting) queueMicrotask(this.ackParsed);
  }

  /** Acknowledges what the task parsed, if it completes a batch. */
  private readonly ackParsed = (): void => {
    const next = this.parsedTo!;
    this.parsedTo = undefined;
    if (next - this.acked < this.ackBytes) return;
    this.acked = next;
    this.options.ack(next);
  };
}
