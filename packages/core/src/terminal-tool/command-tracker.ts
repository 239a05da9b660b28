/**
 * The run state machine of one shell session: where the prompt is, which
 * command is running, where each command's output starts and ends, and which
 * byte ranges are shell chrome (the prompt, the echo of a command the agent
 * typed) rather than output.
 *
 * It is pure: the execute strategies translate the stream's marks into the
 * transitions below, and nothing else changes its state, so every rule lives
 * here and is unit-tested without a PTY.
 *
 * The rule it keeps: only the prompt and the echo of input the agent itself
 * typed are chrome. Output that arrives while the shell sits at its prompt (a
 * background job, a server's log line) is output, and so is the echo of a
 * line the developer typed into the agent's shell.
 */

/** One command seen through shell-integration marks (or a nonce run). */
export interface CommandRecord {
  /** Cursor where the command's output begins (after its echo). */
  readonly outputStart: number;
  /** Cursor of the done mark: output ends here. Null while running. */
  readonly outputEnd: number | null;
  /** One past the done mark: a reader that has read the command's output continues here. */
  readonly doneEnd: number | null;
  readonly exitCode: number | null;
}

export type ShellPhase =
  /** Launched; no prompt seen yet. */
  | 'starting'
  /** Drawing the prompt (between its start and end marks). */
  | 'prompting'
  /** At the prompt, ready for a command. */
  | 'prompt'
  /** The agent typed a command whose output has not started yet. */
  | 'typed'
  /** A command's output is arriving. */
  | 'running'
  /** A command finished; the next prompt has not been drawn yet. */
  | 'finished'
  | 'exited';

export interface ByteRange {
  start: number;
  end: number;
}

/** Commands and chrome ranges kept; older ones are behind every reader. */
const MAX_TRACKED = 256;

interface MutableRecord {
  outputStart: number;
  outputEnd: number | null;
  doneEnd: number | null;
  exitCode: number | null;
}

export class CommandTracker {
  private current: ShellPhase = 'starting';
  private readonly records: MutableRecord[] = [];
  private readonly chromeRanges: ByteRange[] = [];
  private done = 0;
  private promptStart: number | null = null;
  private promptEnd: number | null = null;
  private typedAt: number | null = null;
  private lineAt: number | null = null;
  private marksSeen = false;

  get phase(): ShellPhase {
    return this.current;
  }

  get atPrompt(): boolean {
    return this.current === 'prompt';
  }

  /** True once the shell has announced its integration with a prompt mark. */
  get integrationSeen(): boolean {
    return this.marksSeen;
  }

  /** Cursor where the agent's pending command was typed, while its output has not started. */
  get typedCursor(): number | null {
    return this.current === 'typed' ? this.typedAt : null;
  }

  /**
   * A line the agent sent as raw input (terminal_send) that the shell has not
   * read yet: until its output-start or done mark, the prompt on screen is
   * the one it was typed at, not the shell's answer to it.
   */
  get lineUnread(): boolean {
    return this.lineAt !== null;
  }

  /** Commands finished so far. */
  get commandsDone(): number {
    return this.done;
  }

  /** The command whose output is still arriving. */
  get running(): CommandRecord | null {
    const last = this.records[this.records.length - 1];
    return last && last.outputEnd === null ? last : null;
  }

  /** The newest command, finished or not. */
  get latest(): CommandRecord | null {
    return this.records[this.records.length - 1] ?? null;
  }

  /** The newest finished command. */
  get lastFinished(): CommandRecord | null {
    for (let i = this.records.length - 1; i >= 0; i--) if (this.records[i]!.outputEnd !== null) return this.records[i]!;
    return null;
  }

  /** The first command whose output starts at or after `cursor`: the one a line typed there ran. */
  commandAfter(cursor: number): CommandRecord | null {
    for (const record of this.records) if (record.outputStart >= cursor) return record;
    return null;
  }

  /** The newest command whose done mark lies in [from, to). */
  finishedBetween(from: number, to: number): CommandRecord | null {
    for (let i = this.records.length - 1; i >= 0; i--) {
      const end = this.records[i]!.outputEnd;
      if (end !== null && end >= from && end < to) return this.records[i]!;
    }
    return null;
  }

  /** Chrome ranges overlapping [from, to), in order. */
  chromeWithin(from: number, to: number): ByteRange[] {
    return this.chromeRanges.filter((r) => r.end > from && r.start < to);
  }

  // Transitions. Each names what the shell did.

  /**
   * The agent sent input ending a line at `cursor` while the shell waits for
   * one (at, or about to draw, its prompt). The shell's next output-start or
   * done mark says it read the line; a command holding the terminal reads
   * input of its own, so that is not a line for the shell.
   */
  lineEntered(cursor: number): void {
    if (this.current !== 'prompt' && this.current !== 'prompting' && this.current !== 'finished') return;
    this.lineAt ??= cursor;
  }

  promptStarted(at: number): void {
    this.marksSeen = true;
    // readline redrawing the prompt around a pasted line: the line is still on its way.
    if (this.current === 'typed') return;
    // A prompt while a command has no done mark (e.g. `exec bash`): that command is over.
    if (this.running) this.finish(at, at, null);
    this.promptStart = at;
    this.promptEnd = null;
    this.current = 'prompting';
  }

  promptEnded(end: number): void {
    this.marksSeen = true;
    // Only the first prompt-end after a prompt-start: readline repeats it when it redraws a pasted line.
    if (this.promptEnd !== null) return;
    this.promptEnd = end;
    this.exclude(this.promptStart ?? end, end);
    if (this.current === 'prompting' || this.current === 'starting' || this.current === 'finished') this.current = 'prompt';
  }

  /** A shell without marks showed something that looks like its prompt over [start, end). */
  promptRecognised(start: number, end: number): void {
    if (this.running || this.current === 'typed' || this.current === 'exited') return;
    this.exclude(start, end);
    this.current = 'prompt';
  }

  /** The agent typed a command line at `cursor`. */
  commandTyped(cursor: number): void {
    this.typedAt = cursor;
    this.current = 'typed';
  }

  /**
   * The shell started running a line; its output begins at `outputStart`.
   * `echoEnd` is where the echo of the line ends (the mark's start).
   */
  outputStarted(echoEnd: number, outputStart: number): void {
    // Each command of a multi-command line emits one; the first starts the output.
    if (this.running) return;
    this.lineAt = null;
    if (this.typedAt !== null) {
      // The echo of the agent's own line: from where it typed (or the prompt's end, if later).
      this.exclude(Math.max(this.typedAt, this.promptEnd ?? this.typedAt), echoEnd);
    }
    this.typedAt = null;
    this.promptStart = null;
    this.promptEnd = null;
    this.records.push({ outputStart, outputEnd: null, doneEnd: null, exitCode: null });
    if (this.records.length > MAX_TRACKED) this.records.shift();
    this.current = 'running';
  }

  /** The done mark of the running command, at [start, end). */
  commandFinished(start: number, end: number, exitCode: number | null): void {
    // Bash reports every line it read with a done mark, one that ran nothing included.
    this.lineAt = null;
    if (this.current === 'typed') {
      // A done mark before any output-start: the typed line ran nothing (empty, a comment).
      this.typedAt = null;
      this.current = 'finished';
      return;
    }
    if (!this.running) return;
    this.finish(start, end, exitCode);
    this.current = 'finished';
  }

  processExited(end: number): void {
    if (this.running) this.finish(end, end, null);
    this.typedAt = null;
    this.lineAt = null;
    this.current = 'exited';
  }

  private finish(at: number, doneEnd: number, exitCode: number | null): void {
    const running = this.records[this.records.length - 1]!;
    running.outputEnd = at;
    running.doneEnd = doneEnd;
    running.exitCode = exitCode;
    this.done++;
  }

  private exclude(start: number, end: number): void {
    if (end <= start) return;
    this.chromeRanges.push({ start, end });
    if (this.chromeRanges.length > MAX_TRACKED) this.chromeRanges.shift();
  }
}
