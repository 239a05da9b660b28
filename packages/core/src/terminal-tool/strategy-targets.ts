// What an execute strategy and a run ask of a session, apart from the class that is one (AgentTerminal), so neither imports the other.
import type { Attention, SessionInfo, ShellActivity } from '@ptydeck/contract';
import type { CommandTracker } from './command-tracker.js';
import type { OutputView } from './output-view.js';
import type { RunResult } from './results.js';

export type TerminalState = 'running' | 'idle_at_prompt' | 'waiting_for_input' | 'alt_screen' | 'exited' | 'lost';

/** What a result tells of its terminal (result-builder's terminalFields). */
export interface ResultSession {
  readonly id: string;
  readonly cwd: string;
  /** The developer is typing the answer to an input wait. */
  readonly developerAnswering: boolean;
  state(): { state: TerminalState; attention: Attention | null };
  /** `caller` was told of the current input wait. */
  attentionTold(caller: string): void;
}

/** What progress is streamed from: output as it changes (progress.ts). */
export interface ProgressSource {
  readonly view: OutputView;
  /** Calls `listener` on each change; returns the unsubscribe. */
  onChange(listener: () => void): () => void;
  renderText(from: number, to: number): string;
}

/** What a strategy needs of its session while it settles after a command. */
export interface SettleTarget {
  readonly tracker: CommandTracker;
  readonly exited: boolean;
  readonly safeEnd: number;
  /** Plain text of [from, to), chrome left out. */
  renderText(from: number, to: number): string;
  /** Cursor where the last line of [from, to) begins. */
  lastLineStart(from: number, to: number): number;
  waitFor(done: () => boolean, timeoutMs: number, signal?: AbortSignal): Promise<boolean>;
}

/** What a strategy needs of its session before a run: whether something holds the terminal, and how to give up on marks. */
export interface PromptTarget extends SettleTarget {
  readonly altScreen: boolean;
  readonly runQueued: boolean;
  /** Plain text of the last lines, to recognise a prompt by its look. */
  tail(): string;
  /** Startup files replaced our hooks: follow commands with `fallBack()`'s strategy from now on. */
  fallBack(): void;
}

/** What a strategy needs of its session to run a line in it. */
export interface RunTarget extends SettleTarget {
  /** Cursor one past the newest output. */
  readonly end: number;
  /** Types a line the strategy made (commandInput) as the agent's; throws what the PTY service throws, with nothing typed. */
  typeLine(input: string): void;
}

/** When a run may give up, and how long a shell may take to start. */
export interface RunWindow {
  /** Unix ms. */
  deadline: number;
  /** How long a new shell may take to show its first prompt (TerminalToolOptions.shellStartMs). */
  shellStartMs: number;
  /** When the session's shell started, Unix ms. */
  startedAt: number;
  signal?: AbortSignal;
}

/**
 * How commands are run and followed in a shell, one class per level of shell
 * integration (as VS Code's rich and basic execute strategies): the tool picks
 * one when the session starts (or falls back once) and never tests the level
 * again. A strategy turns the stream's marks into CommandTracker transitions,
 * and owns each terminal_run in its session, from the prompt to the result.
 */
export interface ExecuteStrategy {
  /** Whether the shell is still reading its startup files: a line typed now would be echoed raw before readline takes over. */
  starting(tracker: CommandTracker): boolean;
  /** Whether a command typed now would be read by the shell at its prompt. */
  readyToType(tracker: CommandTracker): boolean;
  /** The bytes that run `command` when typed at the prompt. */
  commandInput(command: string): string;
  /**
   * One terminal_run: waits for the prompt where one is coming, refuses a busy
   * terminal (`busy`), types the line (or queues it for a shell still
   * starting), follows it by the strategy's marks until its command finished,
   * the line ran nothing, the shell ended, the command asks for input or the
   * deadline passed, lets the prompt settle and builds the result. Throws the
   * tool's error when the line could not be typed.
   */
  run(session: RunSession, request: RunRequest): Promise<RunResult>;
  /** Applies one OSC sequence, seen at [start, end) of the stream, to the tracker. */
  applyOsc(payload: string, start: number, end: number, tracker: CommandTracker): void;
  /** How long the prompt normally takes to follow a command's end: the window callers give settle(). */
  readonly settleMs: number;
  /** Waits (at most `windowMs`) for the shell's prompt after a command, or a new shell's first, so the state reads idle. */
  settle(target: SettleTarget, windowMs: number, signal?: AbortSignal): Promise<void>;
  /** A new shell is useful once it shows its prompt: waits for its first, given the tool's start window. */
  settleNewShell(target: SettleTarget, shellStartMs: number, signal?: AbortSignal): Promise<void>;
  /** Before the first run in a new shell: what must be seen before the line is typed (the run's timeout is for the command). */
  beforeFirstRun(target: SettleTarget, shellStartMs: number, signal?: AbortSignal): Promise<void>;
  /** Before a run in a session that has one: waits for the prompt where one is coming, and falls back when it never brings marks. */
  awaitPrompt(target: PromptTarget, window: RunWindow): Promise<void>;
  /** What the command printed, as the result gives it, when the shell ended under it (`exit 3`). */
  outputOfShellExit(text: string): string;
  /** Input the agent typed raw (terminal_send) at `cursor`: what it tells the tracker. */
  rawInput(data: string, cursor: number, tracker: CommandTracker): void;
  /** Whether the shell sits at its prompt though nothing said so (a command the developer ran, without marks); `tail` is read only when asked. */
  idleByLook(tracker: CommandTracker, tail: () => string): boolean;
  /** What the shell is doing, when its marks say so: null when this strategy cannot follow it (the panel is told nothing). */
  shellActivity(tracker: CommandTracker): ShellActivity | null;
  /** The strategy to follow commands with once startup files replaced our hooks. */
  fallBack(): ExecuteStrategy;
}

/** What a run needs of its session: the targets above, a result's fields, progress, cursors per caller. */
export interface RunSession extends PromptTarget, RunTarget, ResultSession, ProgressSource {
  /** Types a command line once the starting shell shows its first prompt. */
  typeWhenReady(command: string): void;
  /** Whether the running command waits for input `caller` has not been told of. */
  attentionNewFor(caller: string): boolean;
  cursorOf(caller: string): number;
  advanceCursor(caller: string, cursor: number): void;
}

/** One terminal_run in a session the tool resolved: the line, whose result it is, and its bounds. */
export interface RunRequest {
  command: string;
  /** The caller's id: its read cursor moves past what the result hands it. */
  caller: string;
  /** Unix ms the call began (elapsed_ms counts from it). */
  started: number;
  /** Unix ms: past it the run returns with its command still running. */
  deadline: number;
  maxBytes: number;
  /** How long a new shell may take to show its first prompt (TerminalToolOptions.shellStartMs). */
  shellStartMs: number;
  /** The session's record in the PTY service, now (throws when it is gone). */
  info(): SessionInfo;
  /** What the tool adds to the result of a line that ran (the ports it opened or names). */
  finish(result: RunResult): Promise<RunResult>;
  signal?: AbortSignal;
  onProgress?: (text: string) => void;
}
