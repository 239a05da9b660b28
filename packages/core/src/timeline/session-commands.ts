/**
 * One session's command records, built from its shell's keyed marks: the
 * command line mark (633;E) and OSC 133's C (output starts) and D (done, with
 * the exit status), as ptydeck's bash rcfile prints them. Pure: the timeline
 * feeds it the marks with their cursors and the time, and who wrote input.
 *
 * The command line mark comes after C (bash prints it as the line's first
 * command runs, or at its end when none ran in the shell itself): it names
 * the running record, and its own bytes are not the command's output.
 *
 * A mark counts only with the shell's key, which the rcfile announces once as
 * the shell starts (before any prompt), in an unexported variable no program
 * sees: a program printing `\e]633;E;rm -rf /\a` makes no record.
 */
import type { CommandActor, CommandRecord, SessionId, SessionSource, ShellActivity } from '@ptydeck/contract';
import { signalFromStatus } from './exit-status.js';
import { parseCommandLineMark } from './command-line-mark.js';
import { parseShellMark } from '../terminal-tool/index.js';

export interface SessionCommandsOptions {
  session: SessionId;
  /** The agent that owns the session (its name), or null for the developer's own. */
  agentName: string | null;
  /** Who ran a line nobody typed (a session's own): the session's creator. */
  source: SessionSource;
  /** Records kept at most; the oldest go first. */
  maxRecords: number;
  /**
   * The session's shell announces its key (bash with ptydeck's rcfile:
   * announcesShellKey). Without it no key is taken, so no mark counts.
   */
  announcesKey: boolean;
}

export class SessionCommands {
  private readonly records: CommandRecord[] = [];
  private key: string | null = null;
  private promptSeen = false;
  private pending: { command: string | null; cwd: string | null } | null = null;
  private running: CommandRecord | null = null;
  /** The running record has its command line (from a mark before or after its start). */
  private named = false;
  /** Where the running record's command line mark lay, when it came after the start. */
  private lineMark: { start: number; end: number } | null = null;
  /** Who wrote input since the last command started: the next one's actor. */
  private readonly typedBy = new Set<SessionSource>();
  private count = 0;
  /** The newest ended command's exit code (kept apart from the records, which the log's trimming takes). */
  private lastExitCode: number | null = null;

  constructor(private readonly options: SessionCommandsOptions) {}

  /**
   * What the shell is doing, as its keyed marks say: null until its first
   * prompt (or for a shell that announces no key), then `running` from a
   * command's start to its end and `idle` at the prompt, with the exit code
   * of the newest command that ended.
   */
  get activity(): ShellActivity | null {
    if (!this.promptSeen) return null;
    return { state: this.running ? 'running' : 'idle', lastExitCode: this.lastExitCode };
  }

  /** The records, oldest first. Lent: copy what you keep. */
  get all(): readonly CommandRecord[] {
    return this.records;
  }

  /** Applies one OSC sequence at [start, end); returns the record it started or ended, if any. */
  osc(payload: string, start: number, end: number, now: number): CommandRecord | null {
    if (payload.startsWith('633;E;')) {
      const mark = parseCommandLineMark(payload);
      if (!mark || this.key === null || mark.key !== this.key) return null;
      if (this.running === null) this.pending = { command: mark.command, cwd: mark.cwd };
      else if (!this.named) return this.name(mark.command, mark.cwd, start, end);
      return null;
    }
    const mark = parseShellMark(payload);
    if (!mark) return null;
    if (mark.kind === 'shell-key') {
      // Only the first, before any prompt: the rcfile prints it as its last act. A shell without it prints none.
      if (this.options.announcesKey && this.key === null && !this.promptSeen) this.key = mark.key;
      return null;
    }
    if (!('key' in mark) || this.key === null || mark.key !== this.key) return null;
    this.promptSeen = true;
    if (mark.kind === 'output-start') return this.start(end, now);
    if (mark.kind === 'command-done') {
      this.pending = null;
      return this.finish(start, now, mark.exitCode, signalFromStatus(mark.exitCode));
    }
    // A prompt while a command has no done mark (`exec bash`): that command is over, how is not known.
    if (mark.kind === 'prompt-start') return this.finish(start, now, null, null);
    return null;
  }

  /** Input was written to the session; while the shell reads lines, it says who typed the next one. */
  input(from: SessionSource): void {
    if (this.running === null) this.typedBy.add(from);
  }

  /** The session's process ended at cursor `end`: a running command ended with it (`exit 3`, a killed shell). */
  exited(end: number, now: number, exitCode: number | null, signal: string | null): CommandRecord | null {
    return this.finish(end, now, exitCode, signal);
  }

  /** Records an earlier host kept: one it saw running ends `lost`. Newer records of this session stay after them. */
  restore(records: CommandRecord[]): CommandRecord[] {
    const restored = records
      .filter((record) => record.session === this.options.session)
      .map((record): CommandRecord => (record.status === 'running' ? { ...record, status: 'lost' } : record));
    this.records.unshift(...restored);
    this.count = Math.max(this.count, ...restored.map((record) => sequenceOf(record.id)));
    this.bound();
    return restored;
  }

  /** Drops the records whose output the log no longer has (it starts at `logStart`); returns how many went. */
  trim(logStart: number): number {
    let drop = 0;
    while (drop < this.records.length && this.records[drop]!.output.start < logStart) drop++;
    if (drop > 0) this.records.splice(0, drop);
    return drop;
  }

  private start(outputStart: number, now: number): CommandRecord | null {
    // Each pipeline of a line may emit one; the first starts the output.
    if (this.running) return null;
    const record: CommandRecord = {
      id: `${this.options.session}:${++this.count}`,
      session: this.options.session,
      command: this.pending?.command ?? null,
      cwd: this.pending?.cwd ?? null,
      actor: this.actor(),
      status: 'running',
      startedAt: now,
      endedAt: null,
      exitCode: null,
      signal: null,
      output: { start: outputStart, end: null },
    };
    this.named = this.pending !== null;
    this.lineMark = null;
    this.pending = null;
    this.typedBy.clear();
    this.running = record;
    this.records.push(record);
    this.bound();
    return record;
  }

  /** The running record's command line, told after it started; a mark right after the start or before the end is not output. */
  private name(command: string | null, cwd: string | null, start: number, end: number): CommandRecord {
    const record = this.running!;
    this.named = true;
    this.lineMark = { start, end };
    const outputStart = start === record.output.start ? end : record.output.start;
    return this.replace(record, { ...record, command, cwd, output: { start: outputStart, end: null } });
  }

  private finish(at: number, now: number, exitCode: number | null, signal: string | null): CommandRecord | null {
    const record = this.running;
    if (!record) return null;
    this.running = null;
    this.lastExitCode = exitCode;
    if (this.lineMark !== null && this.lineMark.end === at) at = this.lineMark.start;
    return this.replace(record, { ...record, status: 'done', endedAt: now, exitCode, signal, output: { start: record.output.start, end: Math.max(at, record.output.start) } });
  }

  /** Replaced, not mutated: a reader holding the old record keeps what it was given. */
  private replace(record: CommandRecord, next: CommandRecord): CommandRecord {
    const index = this.records.lastIndexOf(record);
    if (index >= 0) this.records[index] = next;
    if (this.running === record) this.running = next;
    return next;
  }

  private actor(): CommandActor {
    const agent = this.typedBy.has('agent');
    const developer = this.typedBy.has('user');
    if (agent && developer) return { kind: 'mixed', name: this.options.agentName };
    if (agent) return { kind: 'agent', name: this.options.agentName };
    if (developer) return { kind: 'developer', name: null };
    return this.options.source === 'agent' ? { kind: 'unknown', name: this.options.agentName } : { kind: 'unknown', name: null };
  }

  private bound(): void {
    const excess = this.records.length - this.options.maxRecords;
    if (excess > 0) this.records.splice(0, excess);
  }
}

function sequenceOf(id: string): number {
  const n = Number(id.slice(id.lastIndexOf(':') + 1));
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
}
