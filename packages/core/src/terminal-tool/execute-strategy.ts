// How commands are run and followed in a shell, one strategy per level of shell integration.
import type { CommandTracker } from './command-tracker.js';
import { looksLikeShellPrompt } from './input-prompts.js';
import { bashRunInput, newNonce, nonceRunInput, parseShellMark } from './shell-integration.js';

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

/**
 * How commands are run and followed in a shell, one class per level of shell
 * integration (as VS Code's rich and basic execute strategies): the tool picks
 * one when the session starts (or falls back once) and never tests the level
 * again. A strategy turns the stream's marks into CommandTracker transitions.
 */
export interface ExecuteStrategy {
  readonly kind: 'shell-marks' | 'nonce';
  /** Whether a command typed now would be read by the shell at its prompt. */
  readyToType(tracker: CommandTracker): boolean;
  /** The bytes that run `command` when typed at the prompt. */
  commandInput(command: string): string;
  /** Applies one OSC sequence, seen at [start, end) of the stream, to the tracker. */
  applyOsc(payload: string, start: number, end: number, tracker: CommandTracker): void;
  /** How long the prompt normally takes to follow a command's end: the window callers give settle(). */
  readonly settleMs: number;
  /** Waits (at most `windowMs`) for the shell's prompt after a command, or a new shell's first, so the state reads idle. */
  settle(target: SettleTarget, windowMs: number, signal?: AbortSignal): Promise<void>;
}

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
  readonly kind = 'shell-marks';
  readonly settleMs = PROMPT_SETTLE_MS;
  private key: string | null = null;

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
}

/**
 * A POSIX shell without integration: each run is wrapped in invisible start
 * and done marks carrying a fresh random nonce, so only our own line's marks
 * count. The prompt is recognised by its look.
 */
export class NonceStrategy implements ExecuteStrategy {
  readonly kind = 'nonce';
  readonly settleMs = NONCE_PROMPT_SETTLE_MS;
  private nonce: string | null = null;

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
}
