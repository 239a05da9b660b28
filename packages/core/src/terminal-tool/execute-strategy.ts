// How commands are run and followed in a shell, one strategy per level of shell integration.
import type { ShellActivity } from '@ptydeck/contract';
import type { CommandTracker } from './command-tracker.js';
import { looksLikeShellPrompt } from './input-prompts.js';
import type { RunResult } from './results.js';
import { bashRunInput, newNonce, nonceRunInput, parseShellMark } from './shell-integration.js';
import { runInShell } from './strategy-run.js';
import type { ExecuteStrategy, PromptTarget, RunRequest, RunSession, RunWindow, SettleTarget } from './strategy-targets.js';

export type { ExecuteStrategy, PromptTarget, RunRequest, RunSession, RunTarget, RunWindow, SettleTarget } from './strategy-targets.js';

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

  run(session: RunSession, request: RunRequest): Promise<RunResult> {
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

  run(session: RunSession, request: RunRequest): Promise<RunResult> {
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
