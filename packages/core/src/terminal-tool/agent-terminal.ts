// The agent tool's view of one PTY session: command tracking, terminal modes and a read cursor per caller.
import { Emitter, reportError, type Attention, type SessionId, type SessionSource, type ShellActivity } from '@ptydeck/contract';
import type { SessionFactsWriter } from '../facts/index.js';
import type { PtyService, ScanPosition } from '../pty/types.js';
import { CommandTracker } from './command-tracker.js';
import type { ExecuteStrategy, RunSession, TerminalState } from './strategy-targets.js';
import { InputWatch, type InputWatchTarget } from './input-watch.js';
import { renderPlainText } from './model-text.js';
import { OutputView } from './output-view.js';
import { parseShellMark } from './shell-integration.js';
import { followTerminalStream, type StreamEvent } from './terminal-stream.js';

export type { TerminalState } from './strategy-targets.js';

/** Bytes of tail rendered to recognise prompts. */
const TAIL_BYTES = 2048;

/**
 * What the agent tool knows about one of its PTY sessions beyond the PTY
 * service's own record: the command tracker fed by its execute strategy,
 * terminal modes and a read cursor per caller (its screen is the screen
 * service's, not its own). It follows the session's output through handlers
 * on the service's scan of it, and hears of each chunk through `ingest`.
 * State changes only through the methods below; readers get getters.
 */
export class AgentTerminal implements RunSession, InputWatchTarget {
  readonly tracker = new CommandTracker();
  readonly view: OutputView;
  /** Where the session's scan stood when it exited: no output is scanned after (PtyService's 'pty.exited'), and the service forgets a removed session. */
  private finalPosition: ScanPosition | null = null;
  private readonly stopFollowing: () => void;
  private readonly changed: Emitter<void>;
  private readonly cursors = new Map<string, number>();
  private executeStrategy: ExecuteStrategy | null;
  private queued: (() => void) | null = null;
  private alternate = false;
  private applicationCursor = false;
  private lastData = Date.now();
  private hasExited = false;
  /** Its process was lost with an earlier host (PtyService.restore): exited, but it says so. */
  private wasLost = false;
  private currentCwd: string;
  private readonly watch: InputWatch;
  /** Per caller, the `since` of the last input wait a result told it about. */
  private readonly toldAttention = new Map<string, number>();
  /** The shell activity last told: checked per chunk, so the facts hear only of changes. */
  private shownState: ShellActivity['state'] | null = null;
  private shownExit: number | null = null;

  constructor(
    private readonly service: PtyService,
    /** Where what it learns of the session (an input wait, the shell's state) is told, for the panels. */
    private readonly facts: SessionFactsWriter,
    readonly id: SessionId,
    readonly ownerId: string,
    strategy: ExecuteStrategy | null,
    cwd: string,
  ) {
    this.executeStrategy = strategy;
    this.currentCwd = cwd;
    this.view = new OutputView(service, id, this.tracker);
    // The session's one scan of its output hands this terminal its stream events.
    this.stopFollowing = followTerminalStream((handlers) => service.onSequences(id, handlers), (event) => {
      // Called inside the service's output path: a fault here must not cost the chunk its other readers.
      try {
        this.apply(event);
      } catch (error) {
        reportError(error, `applying a stream event of ${id} failed`);
      }
    });
    this.changed = new Emitter<void>({ name: `agent terminal ${id} changed` });
    this.watch = new InputWatch(this, (attention) => {
      facts.setAttention(id, attention);
      this.emit();
    });
  }

  get pid(): number {
    return this.service.get(this.id)?.pid ?? 0;
  }

  /** Set while the program waits for a person's input. */
  get attention(): Attention | null {
    return this.watch.attention;
  }

  /** Whether a command (or a program that is not a shell) holds the terminal. */
  commandHoldsTerminal(): boolean {
    if (this.hasExited) return false;
    return this.executeStrategy === null || this.tracker.running !== null;
  }

  /** The program waits for input and the developer is typing its answer in the panel. */
  get developerAnswering(): boolean {
    return this.watch.developerAnswering;
  }

  /** An input wait this caller has not been told about yet, and that the developer is not answering already. */
  attentionNewFor(caller: string): boolean {
    const attention = this.watch.attention;
    return attention !== null && !this.watch.developerAnswering && attention.since !== this.toldAttention.get(caller);
  }

  /** A result is telling the caller about the current input wait. */
  attentionTold(caller: string): void {
    const attention = this.watch.attention;
    if (attention) this.toldAttention.set(caller, attention.since);
  }

  /** How commands are run here; null for a program that is not a shell. */
  get strategy(): ExecuteStrategy | null {
    return this.executeStrategy;
  }

  get cwd(): string {
    return this.currentCwd;
  }

  get exited(): boolean {
    return this.hasExited;
  }

  get altScreen(): boolean {
    return this.alternate;
  }

  get appCursor(): boolean {
    return this.applicationCursor;
  }

  get lastDataAt(): number {
    return this.lastData;
  }

  /** A run waits for the starting shell's first prompt before it is typed. */
  get runQueued(): boolean {
    return this.queued !== null;
  }

  get end(): number {
    return this.scanned().end;
  }

  /**
   * Where readers stop: one past the newest byte, never inside an escape
   * sequence or UTF-8 character, and never inside the echo of a command the
   * agent typed whose output has not started (it is left out once it does).
   */
  get safeEnd(): number {
    const position = this.scanned();
    if (this.hasExited) return position.end;
    const end = position.safeEnd;
    const typed = this.tracker.typedCursor;
    return typed === null ? end : Math.min(end, typed);
  }

  /** Where the session's scan of its output stands: asked of the service while the session runs, kept from its exit on. */
  private scanned(): ScanPosition {
    return this.finalPosition ?? this.service.scanPosition(this.id);
  }

  /** Subscribes to any change: output, marks, exit. Returns an unsubscribe. */
  onChange(listener: () => void): () => void {
    return this.changed.on(listener);
  }

  /** A chunk entered the log; the service's scan has applied its stream events already (PtyService.onSequences). */
  ingest(): void {
    this.lastData = Date.now();
    this.watch.outputArrived();
    this.publishActivity();
    this.emit();
  }

  /** Input was written to the terminal, by the agent or by the developer (PtyService 'pty.input'). */
  inputWritten(from: SessionSource, data: string | Uint8Array): void {
    this.watch.inputArrived(from, data);
  }

  markExited(): void {
    this.hasExited = true;
    this.watch.dispose();
    this.queued = null;
    this.finalPosition = this.service.scanPosition(this.id);
    this.tracker.processExited(this.finalPosition.end);
    this.emit();
  }

  /**
   * The session is one an earlier host kept (PtyService.restore): its output
   * ends where the service's scan of it ends, its process is gone (`lost` when
   * it was running then), and the owner's read position carries on from
   * `cursor` when the host kept it.
   */
  markRestored(lost: boolean, cursor: number | null): void {
    this.wasLost = lost;
    if (cursor !== null) this.advanceCursor(this.ownerId, cursor);
    this.markExited();
  }

  markRemoved(): void {
    this.emit();
  }

  /** Startup files replaced our hooks: follow commands as the strategy's fallback does from now on. */
  fallBack(): void {
    if (this.executeStrategy) this.executeStrategy = this.executeStrategy.fallBack();
    this.publishActivity();
  }

  /** Types a command line for the agent now. Throws the service's error (input backlog, exited) with nothing typed. */
  typeCommand(command: string): void {
    this.typeLine(this.requireStrategy().commandInput(command));
  }

  /** Types a line the strategy made from a command (ExecuteStrategy.commandInput), as typeCommand does. */
  typeLine(input: string): void {
    const cursor = this.end;
    this.service.write(this.id, input, 'agent');
    // After the write: a refused one leaves the shell where it was. Output cannot have arrived in between.
    this.tracker.commandTyped(cursor);
    // Running from now: its echo, output and done mark may all come in one chunk, never showing it run.
    this.publishActivity();
  }

  /**
   * Types a command line once the starting shell shows its first prompt, so it
   * is not echoed raw by the terminal before readline takes over.
   */
  typeWhenReady(command: string): void {
    const strategy = this.requireStrategy();
    const off = this.onChange(() => {
      if (!strategy.readyToType(this.tracker) && !this.hasExited) return;
      off();
      this.queued = null;
      if (this.hasExited) return;
      try {
        this.typeCommand(command);
      } catch (error) {
        // Nobody awaits a queued run: the agent sees the shell idle at its prompt and its command not run.
        reportError(error, `a queued command for ${this.id} could not be typed`);
      }
    });
    this.queued = off;
  }

  /** Input the agent typed that is not a command line (terminal_send). */
  typeRaw(data: string): void {
    const cursor = this.end;
    this.service.write(this.id, data, 'agent');
    this.view.expectEcho(cursor, data);
    this.executeStrategy?.rawInput(data, cursor, this.tracker);
  }

  cursorOf(caller: string): number {
    return this.cursors.get(caller) ?? 0;
  }

  /** Moves a caller's read position forward (never back): what it was handed is read. */
  advanceCursor(caller: string, cursor: number): void {
    this.cursors.set(caller, Math.max(this.cursorOf(caller), cursor));
  }

  renderText(from: number, to: number): string {
    return this.view.render(from, to).text;
  }

  lastLineStart(from: number, to: number): number {
    return this.view.lineEnd(from, to);
  }

  /** Plain text of the last lines, to recognise prompts. */
  tail(): string {
    const end = this.safeEnd;
    const from = Math.max(0, end - TAIL_BYTES);
    if (end <= from) return '';
    const read = this.service.read(this.id, { cursor: from, maxBytes: end - from });
    return renderPlainText(read.data);
  }

  /** The state a model can act on, and what input is asked for when waiting. */
  state(): { state: TerminalState; attention: Attention | null } {
    if (this.hasExited) return { state: this.wasLost ? 'lost' : 'exited', attention: null };
    if (this.alternate) return { state: 'alt_screen', attention: null };
    if (this.tracker.atPrompt) return { state: 'idle_at_prompt', attention: null };
    // A result is returned after a short quiet (terminal_send waits 200 ms): ask the kernel now.
    const attention = this.watch.checkNow(200);
    if (attention) return { state: 'waiting_for_input', attention };
    if (this.executeStrategy?.idleByLook(this.tracker, () => this.tail())) return { state: 'idle_at_prompt', attention: null };
    return { state: 'running', attention: null };
  }

  /**
   * Resolves true once `done()` holds (checked now and after every change),
   * false when `timeoutMs` passes or the signal aborts first.
   */
  waitFor(done: () => boolean, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (done()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const finish = (value: boolean) => {
        clearTimeout(timer);
        unsubscribe();
        signal?.removeEventListener('abort', onAbort);
        resolve(value);
      };
      const onAbort = () => finish(false);
      const timer = setTimeout(() => finish(done()), timeoutMs);
      const unsubscribe = this.onChange(() => {
        if (done()) finish(true);
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      if (signal?.aborted) finish(false);
    });
  }

  dispose(): void {
    this.stopFollowing();
    this.watch.dispose();
    this.queued?.();
    this.queued = null;
    this.changed.clear();
  }

  private apply(event: StreamEvent): void {
    if (event.kind === 'alt-screen') this.alternate = event.on;
    else if (event.kind === 'app-cursor') this.applicationCursor = event.on;
    else {
      const mark = parseShellMark(event.payload);
      if (mark?.kind === 'cwd') this.currentCwd = mark.cwd;
      else this.executeStrategy?.applyOsc(event.payload, event.start, event.end, this.tracker);
    }
  }

  private requireStrategy(): ExecuteStrategy {
    if (!this.executeStrategy) throw new Error(`session ${this.id} is not a shell`);
    return this.executeStrategy;
  }

  /** Gives the panel what the shell is doing when that changed, as far as the strategy can follow it (nothing once exited). */
  private publishActivity(): void {
    const activity = this.hasExited ? null : (this.executeStrategy?.shellActivity(this.tracker) ?? null);
    const state = activity?.state ?? null;
    const lastExit = activity?.lastExitCode ?? null;
    if (state === this.shownState && lastExit === this.shownExit) return;
    this.shownState = state;
    this.shownExit = lastExit;
    this.facts.setShellActivity(this.id, state === null ? null : { state, lastExitCode: lastExit });
  }

  private emit(): void {
    this.changed.fire();
  }
}
