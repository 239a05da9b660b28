// One session's state inside the PTY service: its info, output log and running process.
import type { PtySessionInfo } from './types.js';
import { OutputLog, type SlabPool } from './output-log.js';
import type { FloodTurn } from './flood-turns.js';
import type { PtyProcess } from './pty-process.js';
import { TitleTracker } from './title-tracker.js';
import { SequenceScanner } from '../vt/index.js';

/**
 * One PTY session's state inside the service (SessionInfo is its public snapshot): its info (mutated in place, copied
 * on the way out), its output log, and its process while it runs.
 */
export class PtySession {
  readonly log: OutputLog;
  /** The one pass over its output: the title below and the agent tool's handlers share it. */
  readonly sequences: SequenceScanner;
  readonly titles = new TitleTracker();
  process: PtyProcess | null = null;
  /** Its place among floods taking turns (flood-turns.ts), while its process runs. */
  floodTurn: FloodTurn | null = null;
  /** Set while a kill/remove/dispose is ending this session, so they share one escalation. */
  termination: Promise<void> | null = null;
  /** Whether a background process still held the terminal when the session's process exited. */
  terminalHeld = false;
  readonly exited: Promise<void>;
  private markExited!: () => void;

  /**
   * True for a session an earlier host ran (PtyService.restore): no process of this host's ever ran
   * behind it, so nothing may be signalled for it (its pid, if kept, may name someone else's process now).
   */
  readonly restored: boolean;

  /** `slabs`: the pool the log's slabs come from and go back to (OutputLog). */
  constructor(
    readonly info: PtySessionInfo,
    /** `restoredLogStart`: the log carries on an earlier host's from this absolute cursor (PtyService.restore). */
    options: { slabs?: SlabPool; restoredLogStart?: number } = {},
  ) {
    this.restored = options.restoredLogStart !== undefined;
    this.log = new OutputLog(options.slabs, options.restoredLogStart);
    this.sequences = new SequenceScanner(options.restoredLogStart);
    this.titles.follow(this.sequences);
    this.exited = new Promise((resolve) => {
      this.markExited = resolve;
    });
    if (this.restored) this.markExited();
  }

  get id(): string {
    return this.info.id;
  }

  get running(): boolean {
    return this.info.status === 'running';
  }

  finish(exitCode: number | null, signal: string | null, terminalHeld: boolean): void {
    this.terminalHeld = terminalHeld;
    this.info.status = 'exited';
    this.info.exitCode = exitCode;
    this.info.signal = signal;
    this.info.exitedAt = Date.now();
    this.process = null;
    this.markExited();
  }

  /** A copy callers may keep or mutate without touching the session. */
  snapshot(): PtySessionInfo {
    return { ...this.info, args: [...this.info.args] };
  }
}
