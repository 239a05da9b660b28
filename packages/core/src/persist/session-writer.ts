/**
 * One session's files, kept up to date from the service's log: what the
 * session printed since the last turn is read from the log (never copied on
 * the output path) and appended; a session that printed more than the cap
 * since then starts its file over with the tail; a file past twice the cap
 * is compacted to its last cap bytes; the metadata follows each change. The
 * store calls write() one session at a time, so nothing here runs twice at
 * once.
 */
import type { SessionId, SessionInfo } from '@ptydeck/contract';
import { isContinuationByte, MAX_CONTINUATION_BYTES } from '../vt/index.js';
import { PtyError, type PtyService } from '../pty/types.js';
import type { StoreFiles } from './store-files.js';
import { metaPath, timelinePath, type SessionMeta } from './store-format.js';

/**
 * A session's command timeline as the store sees it (timeline/ gives it): a
 * revision that moves whenever it changed, and its JSON for the output from a
 * cursor on, so the file never names output the output file no longer holds.
 */
export interface TimelineSource {
  /** Moves when the session's records (or resizes) change. */
  revisionOf(id: SessionId): number;
  /** Moves when its chunk times change: written again at most every TIMES_EVERY_MS (see timelineDirty). */
  timesRevisionOf(id: SessionId): number;
  persisted(id: SessionId, from: number): object | null;
  /** A revision that moves when the closed sessions' records change, and what to write of them. */
  closedRevision(): number;
  persistedClosed(): object;
}

/** What a file holds already, for a session restored from it: it is not written again. */
export interface OnDisk {
  start: number;
  length: number;
}

/**
 * How often a session's timeline file is written again when only its chunk times moved. A flood adds
 * one every 10 ms, so every turn (each second) rewrote the file, an atomic replacement (a rename over the
 * old file) beside the metadata's: a third of the store's CPU per MiB (bench/README.md, "The store's
 * renames"). A kill loses at most this long of chunk times (that output replays at the pace of the last
 * time kept); records, resizes, a new file start, an exit and flush() write them at once.
 */
export const TIMES_EVERY_MS = 10_000;

/** A read's smallest size, for the cursors it reports (a read copies what it returns, so one byte). */
const PEEK = 1;
/** Reads this long go into the store's scratch buffer (when it lends one) rather than a new array. */
const SCRATCH_FROM = 64 * 1024;

/**
 * Lends a buffer of at least the cap's length for one write's read, reused
 * once that write resolved: a flood read into new arrays was a new megabyte
 * per session per turn for V8 to count and collect.
 */
export type Scratch = () => Uint8Array;

export class SessionWriter {
  private info: SessionInfo;
  /** False until the output file was (re)written by this writer: appends need a file with a header. */
  private hasFile = false;
  private fileStart = 0;
  private fileBytes = 0;
  private metaDirty = true;
  /** Whether a metadata file of this session is on disk (written by this writer, or the restored one it adopted). */
  private metaOnDisk = false;
  private agentCursor: number | null = null;
  private timeline: TimelineSource | undefined;
  /** The timeline revisions and output start the timeline file was last written for, and when (performance.now()). */
  private timelineWritten = { revision: -1, times: -1, from: -1, at: Number.NEGATIVE_INFINITY };
  /** When this writer was last given a turn: the store serves the longest waiting first. */
  servedAt = 0;

  constructor(
    private readonly dir: string,
    private readonly service: PtyService,
    info: SessionInfo,
    private readonly cap: number,
    /** Where the file operations run (the store's disk thread). */
    private readonly files: StoreFiles,
    onDisk?: OnDisk,
  ) {
    this.info = info;
    if (onDisk) this.adopt(onDisk);
  }

  get id(): SessionId {
    return this.info.id;
  }

  /** Output bytes on disk. */
  get bytes(): number {
    return this.fileBytes;
  }

  /** Whether the session's program is done (exited, or lost before this host): such files go first under the total cap. */
  get ended(): boolean {
    return this.info.status !== 'running';
  }

  /** When it ended (or was created, for a lost one): the oldest ended session's files go first. */
  get endedAt(): number {
    return this.info.exitedAt ?? this.info.createdAt;
  }

  /** Whether its metadata says something the file does not yet (an exit is the write a session must not miss). */
  get urgent(): boolean {
    return this.metaDirty && this.ended;
  }

  update(info: SessionInfo): void {
    this.info = info;
    this.metaDirty = true;
  }

  noteAgentCursor(cursor: number | null): void {
    if (cursor === this.agentCursor) return;
    this.agentCursor = cursor;
    this.metaDirty = true;
  }

  noteTimeline(source: TimelineSource): void {
    this.timeline = source;
  }

  /** Whether a turn would write anything; `all`: a flush's turn, which writes chunk times however recent (timelineDirty). */
  pending(all = false): boolean {
    const end = this.logEnd();
    return end !== undefined && (this.metaDirty || !this.hasFile || end > this.fileStart + this.fileBytes || this.timelineDirty(all));
  }

  /**
   * Writes what the log has that the file does not, then the metadata. Resolves with the bytes
   * written. `scratch` lends the buffer a long read goes into; it is not kept past the promise.
   * `all`: chunk times too, however recently they were written (a flush).
   */
  async write(scratch?: Scratch, all = false): Promise<number> {
    let written = 0;
    const cursor = this.fileStart + this.fileBytes;
    const end = this.logEnd();
    if (end === undefined) return 0;
    // The record first: an output file without one is cleared at load, so a kill between a new
    // session's first two writes would lose the session. A record without output comes back empty.
    if (!this.metaOnDisk) written += await this.writeMeta();
    if (end > cursor || !this.hasFile) {
      // Read in the same turn as the end was seen: nothing arrives in between.
      const probe = this.service.read(this.id, { cursor, maxBytes: PEEK });
      if (!this.hasFile) {
        written += await this.startOver(Math.max(0, end - this.cap), end, scratch);
      } else if (probe.skipped > 0 || end - cursor > this.cap) {
        written += await this.startOver(Math.max(cursor, end - this.cap), end, scratch);
      } else {
        const { data, next } = this.service.read(this.id, { cursor, into: this.into(end - cursor, scratch) });
        // Counted before the write: a disk thread takes the array (StoreFiles.takesArrays).
        const length = data.length;
        await this.changingFile(() => this.files.appendOutput(this.dir, this.id, this.fileBytes, data));
        this.fileBytes = next - this.fileStart;
        written += length;
      }
      this.metaDirty = true;
    }
    if (this.fileBytes > 2 * this.cap) written += await this.shrinkTo(this.cap);
    if (this.timelineDirty(all)) written += await this.writeTimeline();
    if (this.metaDirty) written += await this.writeMeta();
    return written;
  }

  /** Rewrites the output file with at most its last `bytes` bytes (the total cap asks it of ended sessions first). */
  async shrinkTo(bytes: number): Promise<number> {
    if (this.fileBytes <= bytes) return 0;
    const tail = characterStart(await this.changingFile(() => this.files.readOutputTail(this.dir, this.id, this.fileBytes, bytes)));
    const length = tail.length; // before the write, which may take the array
    const start = this.fileStart + this.fileBytes - length;
    await this.changingFile(() => this.files.rewriteOutput(this.dir, this.id, start, tail));
    this.fileStart = start;
    this.fileBytes = length;
    this.metaDirty = true;
    return length;
  }

  /** A new file from `from` (or the oldest byte the log still has) to the log's end, `end` (seen in this turn). */
  private async startOver(from: number, end: number, scratch?: Scratch): Promise<number> {
    const read = this.service.read(this.id, { cursor: from, into: this.into(end - from, scratch) });
    // A jump may land inside a character: the file starts at the next one, so it always decodes.
    const data = read.cursor > this.fileStart + this.fileBytes || !this.hasFile ? characterStart(read.data) : read.data;
    const length = data.length; // before the write, which may take the array
    const start = read.next - length;
    await this.changingFile(() => this.files.rewriteOutput(this.dir, this.id, start, data));
    this.hasFile = true;
    this.fileStart = start;
    this.fileBytes = length;
    return length;
  }

  /**
   * Where a read of `bytes` goes: the scratch buffer for a long one (a read never exceeds the cap:
   * `from` is at most a cap before the end, seen in the same turn, so it is read whole), else a new array.
   */
  private into(bytes: number, scratch: Scratch | undefined): Uint8Array | undefined {
    // A disk thread takes what it writes: a read of its own each time (one copy either way).
    if (!scratch || this.files.takesArrays || bytes < SCRATCH_FROM || bytes > this.cap) return undefined;
    return scratch();
  }

  /** After a failed write, what the file holds is unknown (half an append, or no file): the next turn starts it over. */
  private async changingFile<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      this.hasFile = false;
      throw error;
    }
  }

  private timelineDirty(all: boolean): boolean {
    if (!this.timeline || !this.hasFile) return false;
    const written = this.timelineWritten;
    if (this.timeline.revisionOf(this.id) !== written.revision || this.fileStart !== written.from) return true;
    if (this.timeline.timesRevisionOf(this.id) === written.times) return false;
    // Chunk times alone: at most every TIMES_EVERY_MS, but at once for a flush and for an ended session (its last).
    return all || this.ended || performance.now() - written.at >= TIMES_EVERY_MS;
  }

  /** The records and times for the output the file holds; before the metadata, which a kill must find last. */
  private async writeTimeline(): Promise<number> {
    const revision = this.timeline!.revisionOf(this.id);
    const times = this.timeline!.timesRevisionOf(this.id);
    const data = this.timeline!.persisted(this.id, this.fileStart);
    if (data === null) return 0;
    const text = JSON.stringify(data);
    await this.files.replace(timelinePath(this.dir, this.id), text);
    this.timelineWritten = { revision, times, from: this.fileStart, at: performance.now() };
    return text.length;
  }

  private async writeMeta(): Promise<number> {
    this.metaDirty = false;
    const meta: SessionMeta = {
      version: 1,
      info: this.info,
      written: this.fileStart + this.fileBytes,
      readEnd: this.logEnd() ?? null,
      agentCursor: this.agentCursor,
      savedAt: Date.now(),
    };
    const text = JSON.stringify(meta);
    try {
      await this.files.replace(metaPath(this.dir, this.id), text);
      this.metaOnDisk = true;
    } catch (error) {
      this.metaDirty = true;
      throw error;
    }
    return text.length;
  }

  /** The log's end cursor now; undefined once the service no longer has the session (its removal is on its way). */
  private logEnd(): number | undefined {
    try {
      return this.service.read(this.id, { maxBytes: PEEK }).end;
    } catch (error) {
      if (error instanceof PtyError && error.code === 'no_such_session') return undefined;
      throw error;
    }
  }

  private adopt(onDisk: OnDisk): void {
    this.metaOnDisk = true;
    // Only a log that still holds what the file holds is spared a rewrite.
    const probe = this.service.read(this.id, { cursor: Math.min(onDisk.start, this.logEnd() ?? 0), maxBytes: PEEK });
    if (probe.skipped > 0 || probe.cursor !== onDisk.start || probe.end < onDisk.start + onDisk.length) return;
    this.hasFile = true;
    this.fileStart = onDisk.start;
    this.fileBytes = onDisk.length;
  }
}

/** `bytes` from its first character's lead byte: a cut inside a character drops the character's remains. */
function characterStart(bytes: Uint8Array): Uint8Array {
  let skip = 0;
  while (skip < MAX_CONTINUATION_BYTES && skip < bytes.length && isContinuationByte(bytes[skip]!)) skip++;
  return skip === 0 ? bytes : bytes.subarray(skip);
}
