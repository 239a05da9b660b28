// How commands are run and followed in a shell, one strategy per level of shell integration.
import type { ShellActivity } from '@ptydeck/contract';
import type { AgentTerminal } from './agent-terminal.js';
import type { CommandTracker } from './command-tracker.js';
import { looksLikeShellPrompt } from './input-prompts.js';
import type { RunResult } from './results.js';
import { bashRunInput, newNonce, nonceRunInput, parseShellMark } from './shell-integration.js';
import { runInShell, type RunRequest } from './strategy-run.js';

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
  run(session: AgentTerminal, request: RunRequest): Promise<RunResult>;
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

/** What bash prints as it exits by `exit` or `logout`: the shell's words, not the command's output. */
const SHELL_EXIT_LINE = /(^|\n)(?:exit|logout)\n?$/;
/** A nonce shell's first prompt is recognised by its look; one that does not look like one costs at most this. */
const NONCE_FIRST_PROMPT_MS = 2000;

/** Longest wait for the prompt after a command's done mark (they normally arrive together). */
const PROMPT_SETTLE_MS = 2000;
/** The same without marks, where a prompt is only recognised by its look: an unusual PS1 costs only this. */
const NONCE_PROMPT_SETTLE_MS = 500;

/**
 * bash with our rcfile: OSC 133 prompt, output-start and done marks. Each
 * mark carries the shell's key, which the rcfile announces once as the shell
 * starts and keeps in an unexported variable: a mark without it (a file that
 * is cat'ed, a program faking a prompt) is output like any other, so it can
 * neither end a command, nor forge its exit code, nor make the tool type the
 * agent's next command into a program that is still running.
 */
export class ShellMarksStrategy implements ExecuteStrategy {
  readonly settleMs = PROMPT_SETTLE_MS;
  private key: string | null = null;

  run(session: AgentTerminal, request: RunRequest): Promise<RunResult> {
    return runInShell(this, session, request);
  }

  starting(tracker: CommandTracker): boolean {
    return !tracker.integrationSeen;
  }

  readyToType(tracker: CommandTracker): boolean {
    return tracker.atPrompt;
  }

  commandInput(command: string): string {
    return bashRunInput(command);
  }

  applyOsc(payload: string, start: number, end: number, tracker: CommandTracker): void {
    const mark = parseShellMark(payload);
    if (!mark) return;
    if (mark.kind === 'shell-key') {
      // Only the first, before any command could have run: the rcfile prints it as its last act.
      if (this.key === null && tracker.phase === 'starting') this.key = mark.key;
      return;
    }
    if (!('key' in mark) || this.key === null || mark.key !== this.key) return;
    if (mark.kind === 'prompt-start') tracker.promptStarted(start);
    else if (mark.kind === 'prompt-end') tracker.promptEnded(end);
    else if (mark.kind === 'output-start') tracker.outputStarted(start, end);
    else if (mark.kind === 'command-done') tracker.commandFinished(start, end, mark.exitCode);
  }

  async settle(target: SettleTarget, windowMs: number, signal?: AbortSignal): Promise<void> {
    const { tracker } = target;
    await target.waitFor(() => tracker.atPrompt || target.exited || tracker.running !== null, windowMs, signal);
  }

  settleNewShell(target: SettleTarget, shellStartMs: number, signal?: AbortSignal): Promise<void> {
    return this.settle(target, shellStartMs, signal);
  }

  beforeFirstRun(target: SettleTarget, shellStartMs: number, signal?: AbortSignal): Promise<void> {
    // A new bash first gets its own start window.
    return this.settle(target, shellStartMs, signal);
  }

  /**
   * A bash starting up (slow startup files), or between a command's end and
   * its next prompt: wait for the prompt. A prompt that never brings marks
   * after the start window means startup files replaced our hooks: fall back
   * to nonce marks.
   */
  async awaitPrompt(target: PromptTarget, window: RunWindow): Promise<void> {
    const { tracker } = target;
    if (tracker.atPrompt || tracker.running || tracker.phase === 'typed' || target.altScreen || target.runQueued) return;
    await target.waitFor(() => tracker.atPrompt || target.exited || tracker.running !== null, Math.max(0, window.deadline - Date.now()), window.signal);
    const sinceStart = Date.now() - window.startedAt;
    if (!tracker.integrationSeen && sinceStart >= window.shellStartMs && looksLikeShellPrompt(target.tail())) target.fallBack();
  }

  outputOfShellExit(text: string): string {
    return text.replace(SHELL_EXIT_LINE, '$1');
  }

  rawInput(data: string, cursor: number, tracker: CommandTracker): void {
    // Only marks say when bash read a line: without them nothing would clear it.
    if (/[\r\n]/.test(data)) tracker.lineEntered(cursor);
  }

  idleByLook(): boolean {
    // The marks say when it is at its prompt.
    return false;
  }

  /** Whether it sits at its prompt or runs a line (the agent's or one the developer typed), and how the last line ended. */
  shellActivity(tracker: CommandTracker): ShellActivity | null {
    if (!tracker.integrationSeen) return null;
    const phase = tracker.phase;
    return { state: phase === 'typed' || phase === 'running' ? 'running' : 'idle', lastExitCode: tracker.lastFinished?.exitCode ?? null };
  }

  fallBack(): ExecuteStrategy {
    return new NonceStrategy();
  }
}

/**
 * A POSIX shell without integration: each run is wrapped in invisible start
 * and done marks carrying a fresh random nonce, so only our own line's marks
 * count. The prompt is recognised by its look.
 */
export class NonceStrategy implements ExecuteStrategy {
  readonly settleMs = NONCE_PROMPT_SETTLE_MS;
  private nonce: string | null = null;

  run(session: AgentTerminal, request: RunRequest): Promise<RunResult> {
    return runInShell(this, session, request);
  }

  starting(): boolean {
    // Nothing tells its startup files from its prompt: a line is typed when it looks ready.
    return false;
  }

  readyToType(tracker: CommandTracker): boolean {
    return tracker.running === null && tracker.phase !== 'typed';
  }

  commandInput(command: string): string {
    this.nonce = newNonce();
    return nonceRunInput(command, this.nonce);
  }

  applyOsc(payload: string, start: number, end: number, tracker: CommandTracker): void {
    const mark = parseShellMark(payload);
    if (!mark || this.nonce === null) return;
    if (mark.kind === 'nonce-start' && mark.nonce === this.nonce) {
      // Everything from where the line was typed to the mark is its echo (and a prompt drawn late).
      tracker.outputStarted(end, end);
    } else if (mark.kind === 'nonce-done' && mark.nonce === this.nonce) {
      this.nonce = null;
      tracker.commandFinished(start, end, mark.exitCode);
    }
  }

  async settle(target: SettleTarget, windowMs: number, signal?: AbortSignal): Promise<void> {
    const { tracker } = target;
    // After the last command, or from the start for a new shell's first prompt.
    const from = tracker.lastFinished?.outputEnd ?? 0;
    const prompt = () => looksLikeShellPrompt(target.renderText(from, target.safeEnd));
    const seen = await target.waitFor(() => target.exited || prompt(), windowMs, signal);
    // Only the prompt's own line is chrome: a startup banner above it is output.
    if (seen && !target.exited) tracker.promptRecognised(target.lastLineStart(from, target.safeEnd), target.safeEnd);
  }

  settleNewShell(target: SettleTarget, _shellStartMs: number, signal?: AbortSignal): Promise<void> {
    return this.settle(target, NONCE_FIRST_PROMPT_MS, signal);
  }

  async beforeFirstRun(): Promise<void> {
    // Nothing: the run's start mark tells its output from a prompt drawn late.
  }

  async awaitPrompt(): Promise<void> {
    // No prompt is announced: readyToType decides by what has run.
  }

  outputOfShellExit(text: string): string {
    return text;
  }

  rawInput(): void {
    // Nothing says when the shell reads a line.
  }

  idleByLook(tracker: CommandTracker, tail: () => string): boolean {
    // A command the developer ran leaves a prompt only its look reveals.
    return !tracker.running && tracker.phase !== 'typed' && looksLikeShellPrompt(tail());
  }

  shellActivity(): ShellActivity | null {
    // Nonce runs say nothing of the developer's commands, so nothing is claimed.
    return null;
  }

  fallBack(): ExecuteStrategy {
    return this;
  }
}
