// Notices a command waiting for input (from the kernel, else the prompt's look), so a wait returns instead of
// timing out.
import type { Attention, SessionSource } from '@ptydeck/contract';
import { probeInputWait, type InputWait } from '../proc/input-wait.js';
import { detectInputPrompt, endsLikeAPrompt, lastLine } from './input-prompts.js';

/** What the watch needs of its terminal. */
export interface InputWatchTarget {
  readonly exited: boolean;
  readonly lastDataAt: number;
  /** The session leader's pid, whose terminal is watched. */
  readonly pid: number;
  /** A full-screen program (less, vim, top) always reads its keys: its state says so, it is not a prompt. */
  readonly altScreen: boolean;
  /** Whether a command (or a program that is not a shell) holds the terminal: a shell at its own prompt asks nobody. */
  commandHoldsTerminal(): boolean;
  /** Plain text of the last lines of output. */
  tail(): string;
}

/** Output must be quiet this long before a program counts as waiting: a prompt is followed by silence. */
export const QUIET_MS = 300;
/** While a command is quiet and not waiting, the kernel is asked again, backing off to this. */
const PROBE_MAX_MS = 700;
/** Where the kernel cannot be asked (macOS), a prompt's look must hold this long before it counts. */
const TEXT_ONLY_QUIET_MS = 1000;
const MAX_PROMPT_CHARS = 1000;

/**
 * Knows, for one terminal, whether its program is waiting for a person:
 * after QUIET_MS without output it asks the kernel (probeInputWait) and,
 * while the command stays quiet, asks again with a backoff (no event says
 * that a process went to sleep reading its terminal). Output clears it.
 * Poll-family waits count only with a prompt-like last line, since a server
 * listening for keyboard shortcuts sleeps the same way; read(2) on the
 * terminal counts whatever the text says.
 */
export class InputWatch {
  private current: Attention | null = null;
  private timer: NodeJS.Timeout | undefined;
  private interval = QUIET_MS;
  private disposed = false;
  /**
   * The developer's keys reached the command and were not submitted yet: they
   * are answering its prompt (`prompt`: the attention they answer, null when
   * they typed before the prompt was known).
   */
  private answering: { prompt: Attention | null } | null = null;

  constructor(
    private readonly target: InputWatchTarget,
    private readonly onChange: (attention: Attention | null) => void,
    private readonly probe: (pid: number) => InputWait = probeInputWait,
  ) {}

  get attention(): Attention | null {
    return this.current;
  }

  /** The program waits for input, and the developer is typing the answer in the panel. */
  get developerAnswering(): boolean {
    return this.current !== null && this.answering !== null;
  }

  /**
   * Input was written to the terminal. The developer's keys into a command
   * mean they are answering it, until a line is submitted (by anyone):
   * meanwhile the echo of their keys clears the prompt as any output does, but
   * the kernel finding the program still reading brings back the same one, so
   * nobody is told of a new prompt (an agent would type over the developer).
   */
  inputArrived(from: SessionSource, data: string | Uint8Array): void {
    const text = typeof data === 'string' ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('latin1');
    const submitted = lastSubmit(text);
    if (submitted >= 0) this.answering = null;
    const typedSince = submitted < text.length - 1;
    if (from === 'user' && typedSince && this.target.commandHoldsTerminal()) this.answering ??= { prompt: this.current };
  }

  /**
   * New output: whatever was asked has moved on; look again once it goes
   * quiet. On the output path, so it only notes the change: a timer already
   * pending finds the output newer than itself and waits out the rest.
   */
  outputArrived(): void {
    if (this.current) this.set(null);
    this.interval = QUIET_MS;
    if (this.timer === undefined) this.arm(QUIET_MS);
  }

  /** The shell moved (a command started or ended): look again once quiet. */
  commandChanged(): void {
    if (!this.target.commandHoldsTerminal()) this.set(null);
    this.interval = QUIET_MS;
    this.arm(QUIET_MS);
  }

  /** Asks now, when output has been quiet for `quietMs`: for a result about to be returned. */
  checkNow(quietMs = QUIET_MS): Attention | null {
    if (!this.current && Date.now() - this.target.lastDataAt >= quietMs) this.look();
    return this.current;
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(delay: number): void {
    if (this.disposed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.tick(), delay);
    this.timer.unref?.();
  }

  private tick(): void {
    this.timer = undefined;
    if (this.disposed || this.target.exited || this.current) return;
    if (!this.target.commandHoldsTerminal()) {
      this.answering = null;
      return;
    }
    const quietFor = Date.now() - this.target.lastDataAt;
    if (quietFor < QUIET_MS) return this.arm(QUIET_MS - quietFor);
    if (this.look()) return;
    this.interval = Math.min(PROBE_MAX_MS, Math.round(this.interval * 1.5));
    this.arm(this.interval);
  }

  /** One question to the kernel (or the text); true once the program is known to wait. */
  private look(): boolean {
    if (this.target.exited || this.target.altScreen || !this.target.commandHoldsTerminal()) return false;
    const wait = this.probe(this.target.pid);
    if (wait.state === 'busy') {
      // The program took the developer's keys without a line (a key press it waited for) and went on.
      this.answering = null;
      return false;
    }
    if (this.answering?.prompt) {
      this.set(this.answering.prompt);
      return true;
    }
    const tail = this.target.tail();
    const textKind = detectInputPrompt(tail);
    if (wait.state === 'unsupported') {
      if (!textKind || Date.now() - this.target.lastDataAt < TEXT_ONLY_QUIET_MS) return false;
    } else if (wait.state === 'polling' && !textKind && !endsLikeAPrompt(tail)) {
      return false;
    }
    const attention: Attention = { kind: textKind ?? 'unknown', prompt: lastLine(tail).slice(-MAX_PROMPT_CHARS), since: Date.now() };
    if (this.answering) this.answering.prompt = attention;
    this.set(attention);
    return true;
  }

  private set(attention: Attention | null): void {
    if (this.current === attention) return;
    this.current = attention;
    this.onChange(attention);
  }
}

/** Where the last key that hands a prompt its answer, or gives up on it (Enter, Ctrl-C, Ctrl-D), is in `text`; -1: none. */
function lastSubmit(text: string): number {
  return Math.max(text.lastIndexOf('\r'), text.lastIndexOf('\n'), text.lastIndexOf('\x03'), text.lastIndexOf('\x04'));
}
