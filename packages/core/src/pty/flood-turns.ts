/**
 * Floods take turns at the event loop.
 *
 * Every PTY with output waiting costs the main thread one read (at most
 * 4095 bytes, the line discipline's limit) and its handling on every turn of
 * the loop. With a hundred sessions flooding, a turn read all hundred before
 * the loop came back to a keystroke, and the hundred writers, woken by every
 * read, took the CPU the loop needed: the main thread spent longer waiting
 * for a CPU than running, and typing in a 101st session echoed late (bench
 * figure 5; bench/README.md has the figures).
 *
 * So only `readers` flooding sessions are read at once. A session counts as a
 * flood once it has produced `floodBytes` without pausing for `quietMs`;
 * past the readers already reading, it is paused (its socket stops reading,
 * so the kernel blocks its writer, as a terminal that is not keeping up
 * does) and queued. A reader gives its place to the next in the queue after
 * `sliceBytes`, and goes to the back. Output that is not a flood (prompts,
 * echoes, a build's log) is never held back, and one flood alone, or up to
 * `readers` of them, runs exactly as without this. No byte is dropped: a
 * paused session's output waits in the kernel, and a session that ends
 * while paused is drained at its close (see pty-process.ts).
 */
import { FLOOD, trickleAfterPause } from './flood.js';
import { LoopWatch, type LoopClock } from './loop-watch.js';

export interface FloodTurnsOptions {
  /** Flooding sessions read at once. */
  readers: number;
  /** Output without a pause of quietMs that makes a session a flood. */
  floodBytes: number;
  /** What a reader reads before it gives way to a waiting flood. */
  sliceBytes: number;
  /** A pause this long ends a flood. */
  quietMs: number;
  /** The clock (tests pass their own). */
  now?: () => number;
  /** When the loop was last seen free, on the same clock (tests pass their own). Default: a LoopWatch. */
  loop?: LoopClock;
}

/** What the turns hold back: a session's reading of its PTY. */
export interface PausableReader {
  pause(): void;
  resume(): void;
  /**
   * Whether output already read waits to be handed on (a read thread's queue):
   * a session whose bytes wait behind others' is not quiet, however long
   * since its last delivery. Absent: nothing is ever read ahead.
   */
  pending?(): boolean;
}

/** A session's place in the turns; its owner reports each read and disposes it when the session ends. */
export interface FloodTurn {
  /** `bytes` were just read from the session's PTY. */
  read(bytes: number): void;
  /**
   * Someone typed into the session: a flood waiting its turn reads at once,
   * so what the input makes it print (the end of a Ctrl-C, a prompt) shows
   * without waiting behind the other floods. Printing on, it is a flood again
   * after floodBytes.
   */
  input(): void;
  /** The session is ending: it leaves the turns, and reads again if it was paused, so its last output is not held. */
  dispose(): void;
}

export const DEFAULT_FLOOD_TURNS: FloodTurnsOptions = {
  readers: 4,
  // Turns are for floods alone: output short of one is never held back.
  floodBytes: FLOOD.runBytes,
  // A turn lets a flood read as much again as made it one.
  sliceBytes: FLOOD.runBytes,
  quietMs: FLOOD.quietMs,
};

type State = 'free' | 'reading' | 'waiting';

class Turn implements FloodTurn {
  state: State = 'free';
  /** Bytes of the current run of output (reads less than quietMs apart). */
  run = 0;
  /** Bytes read since this session last got a reader's place. */
  slice = 0;
  lastReadAt = Number.NEGATIVE_INFINITY;
  disposed = false;

  constructor(
    private readonly turns: FloodTurns,
    readonly reader: PausableReader,
  ) {}

  read(bytes: number): void {
    if (!this.disposed) this.turns.onRead(this, bytes);
  }

  input(): void {
    if (!this.disposed && this.state === 'waiting') this.turns.leave(this);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.turns.leave(this);
  }
}

export class FloodTurns {
  private readonly options: Required<Omit<FloodTurnsOptions, 'loop'>>;
  private readonly loop: LoopClock;
  /** Whether the loop watch is this one's own, to dispose with it. */
  private readonly ownsLoop: boolean;
  private readonly reading = new Set<Turn>();
  private readonly waiting: Turn[] = [];
  /** While floods wait: looks for readers that went quiet, whose place would otherwise stay taken. */
  private quietCheck: NodeJS.Timeout | undefined;

  constructor(options: Partial<FloodTurnsOptions> = {}) {
    const { loop, ...rest } = options;
    this.options = { ...DEFAULT_FLOOD_TURNS, now: () => performance.now(), ...rest };
    // Ticks at a fraction of quietMs, so a quiet spell is seen within about 1.5 quietMs.
    this.loop = loop ?? new LoopWatch(this.options.quietMs / 2, this.options.now);
    this.ownsLoop = loop === undefined;
  }

  /** A session to schedule; readers 0 means floods are never held back. */
  join(reader: PausableReader): FloodTurn {
    return new Turn(this, reader);
  }

  /** @internal Called by Turn.read. */
  onRead(turn: Turn, bytes: number): void {
    const { readers, floodBytes, sliceBytes, quietMs, now } = this.options;
    if (readers === 0) return;
    const at = now();
    if (this.quietSince(turn) || (turn.state === 'free' && trickleAfterPause(bytes, at - turn.lastReadAt, quietMs) && !turn.reader.pending?.())) turn.run = 0;
    turn.lastReadAt = at;
    turn.run += bytes;
    // The loop must be seen free past this read for a pause after it to count as quiet; a trickle's pause the
    // read after it judges (trickleAfterPause), unless the session is a flood, whose quiet its reclaim judges.
    if (turn.state !== 'free' || bytes >= FLOOD.readBytes) this.loop.keepUntil(at + quietMs);
    switch (turn.state) {
      case 'free':
        if (turn.run < floodBytes) return;
        if (this.reading.size >= readers) this.reclaimQuiet();
        if (this.reading.size < readers) return this.startReading(turn);
        return this.wait(turn);
      case 'reading':
        turn.slice += bytes;
        if (turn.slice < sliceBytes || this.waiting.length === 0) return;
        // Its slice is up and another flood waits: to the back of the queue.
        this.reading.delete(turn);
        this.wait(turn);
        this.admit();
        return;
      case 'waiting':
        // Bytes the socket had buffered before it stopped reading: already counted as a flood.
        return;
    }
  }

  /** @internal Called by Turn.dispose and Turn.input. */
  leave(turn: Turn): void {
    const wasWaiting = turn.state === 'waiting';
    if (wasWaiting) this.waiting.splice(this.waiting.indexOf(turn), 1);
    this.reading.delete(turn);
    turn.state = 'free';
    turn.run = 0;
    if (wasWaiting) turn.reader.resume();
    this.admit();
  }

  dispose(): void {
    clearTimeout(this.quietCheck);
    this.quietCheck = undefined;
    for (const turn of [...this.waiting]) this.leave(turn);
    if (this.ownsLoop) this.loop.dispose();
  }

  /**
   * Whether the session printed nothing for quietMs while the loop was free to
   * read it, and has nothing read ahead waiting (see loop-watch.ts).
   */
  private quietSince(turn: Turn): boolean {
    return this.loop.freeAt() - turn.lastReadAt >= this.options.quietMs && !turn.reader.pending?.();
  }

  private startReading(turn: Turn): void {
    turn.state = 'reading';
    turn.slice = 0;
    this.reading.add(turn);
  }

  private wait(turn: Turn): void {
    turn.state = 'waiting';
    this.waiting.push(turn);
    turn.reader.pause();
    this.armQuietCheck();
  }

  /** Gives free readers' places to waiting floods, oldest first. */
  private admit(): void {
    while (this.reading.size < this.options.readers && this.waiting.length > 0) {
      const next = this.waiting.shift()!;
      this.startReading(next);
      // Its pause is not a quiet spell: the next read continues the flood.
      next.lastReadAt = this.options.now();
      next.reader.resume();
    }
    if (this.waiting.length === 0) {
      clearTimeout(this.quietCheck);
      this.quietCheck = undefined;
    }
  }

  /** Readers whose flood ended (quiet for quietMs) give their places back. */
  private reclaimQuiet(): void {
    for (const turn of [...this.reading]) {
      if (!this.quietSince(turn)) continue;
      this.reading.delete(turn);
      turn.state = 'free';
      turn.run = 0;
    }
  }

  /** A reader that stops producing never reads again to give its place away: this takes it back. */
  private armQuietCheck(): void {
    if (this.quietCheck) return;
    this.quietCheck = setTimeout(() => {
      this.quietCheck = undefined;
      // Judged once the loop has seen its waiting reads (the loop clock ticks after them).
      this.loop.keepUntil(this.options.now() + this.options.quietMs);
      this.reclaimQuiet();
      this.admit();
      if (this.waiting.length > 0) this.armQuietCheck();
    }, this.options.quietMs);
    this.quietCheck.unref();
  }
}
