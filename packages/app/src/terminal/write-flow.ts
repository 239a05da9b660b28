/**
 * Flow control between the panel socket and one xterm.js terminal.
 *
 * The browser drains the socket as fast as frames arrive, so the server's
 * backpressure (the socket's buffered amount) never sees a terminal that
 * parses slower than a flood such as `yes` produces: the excess would pile up
 * in xterm.js's own write queue, and a prompt after Ctrl-C would wait behind
 * megabytes of old output. Here at most `inFlightBytes` are handed to xterm.js
 * at a time; the rest waits in a backlog. Once the oldest waiting output is
 * older than `maxLagMs` (or the backlog outgrows `backlogBytes`) the terminal
 * is not keeping up: the backlog is dropped and the view asks the server for a
 * fresh screen (the server's mirror has everything the dropped bytes drew).
 * Lag is measured in time, not bytes, because parse speed varies tenfold with
 * the content (line feeds scroll) and the machine.
 */
export interface WriteFlowOptions {
  /** Hands bytes to the terminal; `parsed` is called once it has processed them. */
  write(data: Uint8Array, parsed: () => void): void;
  /** The backlog was dropped: ask the server to restore the screen. Output is ignored until `restored()`. */
  onBehind(): void;
  inFlightBytes?: number;
  maxLagMs?: number;
  backlogBytes?: number;
  now?: () => number;
}

/** A few frames of ordinary output; small enough to parse within a frame or two even when it is all line feeds. */
export const DEFAULT_IN_FLIGHT_BYTES = 64 * 1024;
/** Output waiting longer than this means the terminal is falling behind; a restored screen catches it up. */
export const DEFAULT_MAX_LAG_MS = 300;
/** Memory bound on the backlog whatever the clock says. */
export const DEFAULT_BACKLOG_BYTES = 4 * 1024 * 1024;

export class WriteFlow {
  private inFlight = 0;
  private backlog: { data: Uint8Array; at: number }[] = [];
  private backlogSize = 0;
  private awaitingRestore = false;
  private readonly inFlightLimit: number;
  private readonly maxLagMs: number;
  private readonly backlogLimit: number;
  private readonly now: () => number;

  constructor(private readonly options: WriteFlowOptions) {
    this.inFlightLimit = options.inFlightBytes ?? DEFAULT_IN_FLIGHT_BYTES;
    this.maxLagMs = options.maxLagMs ?? DEFAULT_MAX_LAG_MS;
    this.backlogLimit = options.backlogBytes ?? DEFAULT_BACKLOG_BYTES;
    this.now = options.now ?? (() => Date.now());
  }

  /** Output in arrival order. */
  push(data: Uint8Array): void {
    if (this.awaitingRestore || data.length === 0) return;
    if (this.backlog.length === 0 && this.inFlight < this.inFlightLimit) {
      this.feed(data);
      return;
    }
    const now = this.now();
    this.backlog.push({ data, at: now });
    this.backlogSize += data.length;
    if (now - this.backlog[0]!.at > this.maxLagMs || this.backlogSize > this.backlogLimit) {
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
      this.backlogSize -= next.data.length;
      this.feed(next.data);
    }
  }

  private clearBacklog(): void {
    this.backlog = [];
    this.backlogSize = 0;
  }
}
