import type { SessionId } from '@ptydeck/contract';
import type { PtyDataEvent, PtyService } from '../pty/types.js';
import { detectInputPrompt, looksLikeShellPrompt, type InputPromptKind } from './input-prompts.js';
import { renderPlainText, stripEcho } from './model-text.js';
import { ScreenMirror } from './screen-mirror.js';
import { parseShellMark, type IntegrationKind } from './shell-integration.js';
import { TerminalStreamScanner } from './terminal-stream.js';

export type TerminalState = 'running' | 'idle_at_prompt' | 'waiting_for_input' | 'alt_screen' | 'exited';

/** One command seen through shell-integration marks (or a nonce run). */
export interface CommandRecord {
  /** Cursor where the command's output begins (after its echo). */
  outputStart: number;
  /** Cursor of the done mark: output ends here. Null while running. */
  outputEnd: number | null;
  exitCode: number | null;
}

interface Range {
  start: number;
  end: number;
}

/** Bytes of tail rendered to recognise prompts. */
const TAIL_BYTES = 2048;
/** Excluded ranges and echo expectations kept; older ones are behind every reader. */
const MAX_TRACKED = 256;

/**
 * What the agent tool knows about one of its sessions, beyond the PTY
 * service's own record: shell-integration marks, the commands they delimit,
 * terminal modes, read cursors per caller, and a lazily created screen mirror.
 * It follows the session's output through `ingest` as it enters the log.
 */
export class AgentSession {
  private readonly scanner = new TerminalStreamScanner();
  private readonly listeners = new Set<() => void>();
  private readonly excluded: Range[] = [];
  private readonly echoes: Array<{ cursor: number; input: string }> = [];
  private readonly cursors = new Map<string, number>();
  private mirror: ScreenMirror | null = null;
  private mirrorFed = 0;
  private promptStart: number | null = null;
  private promptEnd: number | null = null;
  private nonce: { value: string; sendCursor: number } | null = null;

  integration: IntegrationKind;
  altScreen = false;
  appCursor = false;
  /** True between a prompt-end mark and the next output-start mark. */
  atPrompt = false;
  /** Whether the shell integration has announced itself with a prompt mark. */
  integrationSeen = false;
  cwd: string;
  lastDataAt = Date.now();
  /** Commands seen so far, oldest first (bounded). */
  readonly commands: CommandRecord[] = [];
  commandsDone = 0;
  exited = false;
  removed = false;
  /** A run was typed and its output-start mark has not arrived yet. */
  runPending = false;
  /** A run waits for the starting shell's first prompt before it is typed. */
  runQueued = false;

  constructor(
    private readonly service: PtyService,
    readonly id: SessionId,
    readonly ownerId: string,
    integration: IntegrationKind,
    cwd: string,
  ) {
    this.integration = integration;
    this.cwd = cwd;
  }

  /**
   * Where readers stop: one past the newest byte, never inside an escape
   * sequence or UTF-8 character, and never inside the echo of a command line
   * whose output-start mark has not arrived (it is left out once it does).
   */
  get safeEnd(): number {
    if (this.exited) return this.scanner.end;
    const end = this.scanner.safeEnd;
    return this.runPending && this.integration === 'bash' && this.promptEnd !== null ? Math.min(end, this.promptEnd) : end;
  }

  get end(): number {
    return this.scanner.end;
  }

  /** The command whose output is still arriving, if the shell reports one. */
  get runningCommand(): CommandRecord | null {
    const last = this.commands[this.commands.length - 1];
    return last && last.outputEnd === null ? last : null;
  }

  /** The newest command whose done mark lies in [from, to), if any. */
  finishedBetween(from: number, to: number): CommandRecord | null {
    for (let i = this.commands.length - 1; i >= 0; i--) {
      const command = this.commands[i]!;
      if (command.outputEnd !== null && command.outputEnd >= from && command.outputEnd < to) return command;
    }
    return null;
  }

  /** The newest finished command, if any. */
  get lastFinished(): CommandRecord | null {
    for (let i = this.commands.length - 1; i >= 0; i--) if (this.commands[i]!.outputEnd !== null) return this.commands[i]!;
    return null;
  }

  /** Subscribes to any change: output, marks, exit. Returns an unsubscribe. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  ingest(event: PtyDataEvent): void {
    this.lastDataAt = Date.now();
    for (const ev of this.scanner.scan(event.cursor, event.data)) {
      if (ev.kind === 'alt-screen') this.altScreen = ev.on;
      else if (ev.kind === 'app-cursor') this.appCursor = ev.on;
      else if (ev.kind === 'needle-line') {
        if (this.nonce && ev.needle === this.nonce.value) {
          this.exclude(this.nonce.sendCursor, ev.end);
          this.runPending = false;
          this.startCommand(ev.end);
        }
      } else this.applyMark(ev.payload, ev.start, ev.end);
    }
    if (this.mirror) this.feedMirror();
    this.emit();
  }

  markExited(): void {
    this.exited = true;
    this.atPrompt = false;
    const running = this.runningCommand;
    if (running) running.outputEnd = this.scanner.end;
    this.emit();
  }

  markRemoved(): void {
    this.removed = true;
    this.mirror?.dispose();
    this.mirror = null;
    this.emit();
  }

  /** Starts a fallback run: the needle finds the end of the echo, the done mark carries the exit code. */
  beginNonceRun(nonce: string, sendCursor: number): void {
    this.nonce = { value: nonce, sendCursor };
    this.scanner.watchNeedle(nonce);
  }

  /** The tool typed a command line: the shell is no longer idle, even before its marks arrive. */
  noteRunSent(): void {
    this.runPending = true;
    this.atPrompt = false;
  }

  /** Remembers input the agent typed so its echo can be left out of what the agent reads. */
  expectEcho(cursor: number, input: string): void {
    this.echoes.push({ cursor, input });
    if (this.echoes.length > MAX_TRACKED) this.echoes.shift();
  }

  cursorOf(caller: string): number {
    return this.cursors.get(caller) ?? 0;
  }

  setCursor(caller: string, cursor: number): void {
    this.cursors.set(caller, Math.max(this.cursorOf(caller), cursor));
  }

  /**
   * Plain text of the log between two cursors, for a model: escape sequences
   * and shell-integration marks removed, the echo of typed commands left out.
   * Returns the cursor actually started from and the bytes lost to trimming.
   */
  render(from: number, to: number): { text: string; start: number; skipped: number } {
    if (to <= from) return { text: '', start: from, skipped: 0 };
    const read = this.service.read(this.id, { cursor: from, maxBytes: to - from });
    const start = read.cursor;
    const stop = start + read.data.length;
    const parts: string[] = [];
    let at = start;
    const cuts = this.excluded.filter((r) => r.end > start && r.start < stop);
    for (const cut of [...cuts, { start: stop, end: stop }]) {
      if (cut.start > at) parts.push(this.renderSegment(read.data, start, at, cut.start));
      at = Math.max(at, cut.end);
    }
    return { text: parts.join(''), start, skipped: read.skipped };
  }

  private renderSegment(data: Uint8Array, base: number, from: number, to: number): string {
    // Echo expectations inside this segment split it, so each echo is stripped where it begins.
    const points = this.echoes.filter((e) => e.cursor >= from && e.cursor < to);
    let text = '';
    let at = from;
    let echo: string | null = null;
    for (const point of [...points, { cursor: to, input: '' }]) {
      if (point.cursor > at) {
        const raw = Buffer.from(data.subarray(at - base, point.cursor - base)).toString('utf8');
        const plain = renderPlainText(raw);
        text += echo ? stripEcho(plain, echo) : plain;
      }
      at = Math.max(at, point.cursor);
      echo = point.input;
    }
    return text;
  }

  /** Plain text of the last lines, to recognise prompts. */
  tail(): string {
    const end = this.safeEnd;
    const from = Math.max(0, end - TAIL_BYTES);
    if (end <= from) return '';
    const read = this.service.read(this.id, { cursor: from, maxBytes: end - from });
    return renderPlainText(Buffer.from(read.data).toString('utf8'));
  }

  /** The state a model can act on, and the kind of input asked for when waiting. */
  state(): { state: TerminalState; prompt: InputPromptKind | null } {
    if (this.exited) return { state: 'exited', prompt: null };
    if (this.altScreen) return { state: 'alt_screen', prompt: null };
    if (this.integration === 'bash' && this.atPrompt) return { state: 'idle_at_prompt', prompt: null };
    const tail = this.tail();
    const prompt = detectInputPrompt(tail);
    if (prompt) return { state: 'waiting_for_input', prompt };
    if (this.integration === 'nonce' && !this.runningCommand && looksLikeShellPrompt(tail)) {
      return { state: 'idle_at_prompt', prompt: null };
    }
    return { state: 'running', prompt: null };
  }

  /** The screen as a person would see it, rendered by a mirror made on first use. */
  async screen(): Promise<{ text: string; altScreen: boolean }> {
    if (!this.mirror) {
      const info = this.service.get(this.id);
      this.mirror = new ScreenMirror({ cols: info?.cols ?? 80, rows: info?.rows ?? 24 });
      this.mirrorFed = 0;
      this.feedMirror();
    }
    await this.mirror.settled();
    return { text: this.mirror.screenText(), altScreen: this.mirror.isAltScreen };
  }

  resizeMirror(cols: number, rows: number): void {
    this.mirror?.resize(cols, rows);
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
    this.mirror?.dispose();
    this.mirror = null;
    this.listeners.clear();
  }

  private feedMirror(): void {
    const mirror = this.mirror;
    if (!mirror) return;
    const end = this.scanner.end;
    if (end <= this.mirrorFed) return;
    const read = this.service.read(this.id, { cursor: this.mirrorFed, maxBytes: end - this.mirrorFed });
    this.mirrorFed = read.next;
    if (read.data.length > 0) void mirror.write(read.data);
  }

  private applyMark(payload: string, start: number, end: number): void {
    const mark = parseShellMark(payload);
    if (!mark) return;
    switch (mark.kind) {
      case 'prompt-start':
        this.integrationSeen = true;
        // A prompt while a command has no done mark (e.g. `exec bash`): that command is over.
        if (this.runningCommand) this.finishCommand(start, null);
        // A new prompt without output-start: the typed line ran nothing (empty or a comment).
        this.runPending = false;
        this.promptStart = start;
        this.promptEnd = null;
        break;
      case 'prompt-end':
        this.integrationSeen = true;
        // The first prompt-end after a prompt-start: a redraw of a multi-line paste repeats it.
        if (this.promptEnd === null) {
          this.promptEnd = end;
          // The prompt itself is shell chrome, not output: the state says the shell is at its prompt.
          this.exclude(this.promptStart ?? start, end);
        }
        this.atPrompt = true;
        break;
      case 'output-start':
        // Each command of a multi-command line emits one; the first starts the output.
        if (this.runningCommand) break;
        // What lies between the prompt and here is the echo of the typed command.
        if (this.promptEnd !== null) this.exclude(this.promptEnd, start);
        this.promptStart = null;
        this.promptEnd = null;
        this.atPrompt = false;
        this.runPending = false;
        this.startCommand(end);
        break;
      case 'command-done':
        this.finishCommand(start, mark.exitCode);
        break;
      case 'cwd':
        this.cwd = mark.cwd;
        break;
      case 'nonce-done':
        if (this.nonce && mark.nonce === this.nonce.value) {
          // Without an echo (stty -echo) the needle never matched: output starts where input was sent.
          if (!this.runningCommand) this.startCommand(this.nonce.sendCursor);
          this.nonce = null;
          this.runPending = false;
          this.scanner.watchNeedle(null);
          this.finishCommand(start, mark.exitCode);
        }
        break;
    }
  }

  private startCommand(outputStart: number): void {
    this.commands.push({ outputStart, outputEnd: null, exitCode: null });
    if (this.commands.length > MAX_TRACKED) this.commands.shift();
  }

  private finishCommand(outputEnd: number, exitCode: number | null): void {
    const running = this.runningCommand;
    if (!running) return;
    running.outputEnd = outputEnd;
    running.exitCode = exitCode;
    this.commandsDone++;
  }

  private exclude(start: number, end: number): void {
    if (end <= start) return;
    this.excluded.push({ start, end });
    if (this.excluded.length > MAX_TRACKED) this.excluded.shift();
  }

  private emit(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
