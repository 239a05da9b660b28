/**
 * Flow control between the panel socket and one xterm.js terminal.
 *
 * The browser drains the socket as fast as frames arrive, so the server's
 * backpressure (the socket's buffered amount) never sees a terminal that
 * parses slower than a flood such as `yes` produces: the excess would pile up
 * in xterm.js's own write queue, and a prompt after Ctrl-C would wait behind
 * megabytes of old output. Here at most `inFlightBytes` are handed to xterm.js
 * at a time; the rest waits in a backlog, and once the backlog exceeds
 * `backlogBytes` it is dropped and the view asks the server for a fresh screen
 * (the server's mirror has everything the dropped bytes would have drawn).
 */
export interface WriteFlowOptions {
  /** Hands bytes to the terminal; `parsed` is called once it has processed them. */
  write(data: Uint8Array, parsed: () => void): void;
  /** The backlog was dropped: ask the server to restore the screen. Output is ignored until `restored()`. */
  onBehind(): void;
  inFlightBytes?: number;
  backlogBytes?: number;
}

/** Enough for several frames of ordinary output at once; a flood fills it in a moment. */
export const DEFAULT_IN_FLIGHT_BYTES = 128 * 1024;
/** Beyond this a restored screen is cheaper than parsing the backlog, and Ctrl-C shows promptly. */
export const DEFAULT_BACKLOG_BYTES = 512 * 1024;

export class WriteFlow {
  private inFlight = 0;
  private backlog: Uint8Array[] = [];
  private backlogSize = 0;
  private awaitingRestore = false;
  private readonly inFlightLimit: number;
  private readonly backlogLimit: number;

  constructor(private readonly options: WriteFlowOptions) {
    this.inFlightLimit = options.inFlightBytes ?? DEFAULT_IN_FLIGHT_BYTES;
    this.backlogLimit = options.backlogBytes ?? DEFAULT_BACKLOG_BYTES;
  }

  /** Output in arrival order. */
  push(data: Uint8Array): void {
    if (this.awaitingRestore || data.length === 0) return;
    if (this.backlog.length === 0 && this.inFlight < this.inFlightLimit) {
      this.feed(data);
      return;
    }
    this.backlog.push(data);
    this.backlogSize += data.length;
    if (this.backlogSize > this.backlogLimit) {
      this.clearBacklog();
      this.awaitingRestore = true;
      this.options.onBehind();
    }
  }

  /**
   * The server restored the screen (asked for or not). Everything still in the
   * backlog arrived before that snapshot and is covered by it.
   */
  restored(): void {
    this.clearBacklog();
    this.awaitingRestore = false;
  }

  /** True while output is dropped until the server restores the screen. */
  get behind(): boolean {
    return this.awaitingRestore;
  }

  private feed(data: Uint8Array): void {
    this.inFlight += data.length;
    this.options.write(data, () => {
      this.inFlight -= data.length;
      this.drain();
    });
  }

  private drain(): void {
    while (this.backlog.length > 0 && this.inFlight < this.inFlightLimit) {
      const next = this.backlog.shift()!;
      this.backlogSize -= next.length;
      this.feed(next);
    }
  }

  private clearBacklog(): void {
    this.backlog = [];
    this.backlogSize = 0;
  }
}
