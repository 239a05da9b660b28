// `ptydeck attach`: shows a session in this terminal and, with --write, types into it.
import { StringDecoder } from 'node:string_decoder';
import { DisposableStore, lostNote, matchSession, MAX_COLS, MAX_ROWS, MIN_COLS, MIN_ROWS, type PanelError, type PanelOutput, type PtyEvent, type SessionInfo } from '@ptydeck/contract';
import type { CliIo } from './cli-io.js';
import { nodeOs } from '../common/lazy-builtins.js';
import { DETACH_KEY_NAME, DetachKeys } from './detach-keys.js';
import { OutputFilter } from './output-filter.js';
import { readAttachMessage } from './attach-messages.js';
import { PanelSession } from './panel-session.js';
import { printable } from '../common/printable.js';
import { CLEAR_FOR_REDRAW, RawTerminal, type TerminalSize } from './raw-terminal.js';
import { ownerOf, SHORT_ID_LENGTH } from './session-list.js';
import { DirectOutput } from './direct-output.js';
import { styleFor } from './style.js';
import { EXIT_FAILURE, EXIT_LOST, EXIT_OK } from '../common/exit-codes.js';
import { waitForExit } from '../common/process-identity.js';

export interface AttachOptions {
  /** An id, or a prefix that names one session. */
  target: string;
  /** Send keys and the window size; without it attach only watches. */
  write: boolean;
}

/**
 * How long output may keep arriving after the session's exit event: the
 * server sends the event at once, while the last frames may still wait for
 * its coalescing timer (milliseconds) or this client's acks. Every frame
 * restarts the wait, so a tail that keeps coming is not cut.
 */
const EXIT_SETTLE_MS = 150;
/** Longest a redraw nudge waits for the program to answer its first size change. */
const NUDGE_MS = 300;
/** What a serialized screen starts its alternate screen with. */
const ALT_SCREEN_ON = '\x1b[?1049h';
/**
 * How long a closed connection waits for the host's process to be gone
 * before calling it gone: the socket closes as the kernel tears the process
 * down, a moment before its pid is free.
 */
const HOST_EXIT_WAIT_MS = 1000;

/** `ptydeck attach`: shows one session in this terminal, and with --write, types into it. */
export async function runAttach(options: AttachOptions, io: CliIo): Promise<number> {
  // The target in the handshake: the host attaches the session it names as the socket opens (PANEL_ATTACH_PARAM), so that
  // its screen comes right after the snapshot instead of one round trip later (bench figure 12).
  const panel = await PanelSession.connect('ptydeck attach', { read: readAttachMessage, attach: options.target });
  const match = matchSession(panel.snapshot.sessions, options.target);
  try {
    if (match.kind === 'none') {
      const known = panel.snapshot.sessions.map((info) => info.id.slice(0, SHORT_ID_LENGTH)).join(', ');
      throw new Error(`no session matches '${options.target}'${known ? `; sessions: ${known}` : '; there are no sessions'} (see \`ptydeck ls\`)`);
    }
    if (match.kind === 'ambiguous') {
      const candidates = match.candidates.map((info) => `  ${info.id}  ${printable(info.title)}`).join('\n');
      throw new Error(`'${options.target}' matches ${match.candidates.length} sessions; type more of the id:\n${candidates}`);
    }
    if (options.write && match.info.status === 'lost') {
      throw new Error(`session ${match.info.id.slice(0, SHORT_ID_LENGTH)} is lost: its process is gone (the ptydeck host restarted while it ran), so it takes no input; attach without --write to read what was saved of it`);
    }
    if (options.write && match.info.readOnly) throw new Error(`session ${match.info.id.slice(0, SHORT_ID_LENGTH)} is display-only (output an agent ran itself): it takes no input; attach without --write`);
  } catch (error) {
    panel.close();
    throw error;
  }
  // A host older than the handshake's target attached nothing: asked now, before this process builds process.stdin and
  // process.stdout (each a socket on a pipe, which loads node:net where the panel socket did not) and sets up the
  // terminal, so that the host draws the screen meanwhile; the answer is read once run() has its listeners.
  if (panel.attached !== match.info.id) {
    if (panel.attached !== undefined) panel.channel.detach(panel.attached);
    panel.channel.attach(match.info.id);
  }
  return new Attachment(panel, match.info, options.write, io).run();
}

/**
 * One attach: the session's screen drawn once from the server's resync, then
 * its output as it comes, acknowledged as it is written so the server's flow
 * control works (a flood ends in a fresh resync, never a backlog). Both pass
 * through an OutputFilter: this terminal is given what draws, never a request
 * it would answer into the session, nor the developer's clipboard or title.
 */
class Attachment {
  private readonly disposables = new DisposableStore();
  private readonly keys = new DetachKeys();
  private readonly decoder = new StringDecoder('utf8');
  private readonly filter = new OutputFilter();
  private readonly short: string;
  /** One past the last byte written to the local terminal; null until the first screen. */
  private through: number | null = null;
  private acked = 0;
  private ackScheduled = false;
  /** The session's size as the server last said, or as this writer last set it. */
  private sessionSize: TerminalSize;
  private exit: { exitCode: number | null; signal: string | null } | undefined;
  private settleTimer: NodeJS.Timeout | undefined;
  private nudgeTimer: NodeJS.Timeout | undefined;
  private finished = false;
  private resolve!: (code: number) => void;
  /** The local terminal, with process.stdin and process.stdout: built in run(), after the first screen where stdout is direct. */
  private terminal: RawTerminal | undefined;

  constructor(
    private readonly panel: PanelSession,
    private readonly info: SessionInfo,
    private readonly writer: boolean,
    private readonly io: CliIo,
  ) {
    this.short = info.id.slice(0, SHORT_ID_LENGTH);
    this.sessionSize = { cols: info.cols, rows: info.rows };
    if (info.status === 'exited') this.exit = { exitCode: info.exitCode, signal: info.signal };
  }

  run(): Promise<number> {
    const done = new Promise<number>((resolve) => (this.resolve = resolve));
    const { panel, disposables } = this;
    const { channel } = panel;
    disposables.add(channel.onResync(({ id, screen, cursor }) => {
      if (id === this.info.id) this.onResync(screen, cursor);
    }));
    disposables.add(channel.onError((error) => this.onError(error)));
    disposables.add(channel.onEvent((event) => this.onEvent(event)));
    disposables.add(channel.onOutput((output) => this.onOutput(output)));
    disposables.add(panel.onClosed((why) => void this.hostClosed(why)));
    for (const signal of ['SIGTERM', 'SIGHUP', 'SIGINT'] as const) {
      const onSignal = () => this.finish(128 + signalNumber(signal), `${signal} ended attach; session ${this.short} keeps running`);
      process.on(signal, onSignal);
      disposables.add(() => process.off(signal, onSignal));
    }
    // stdout a pipe, a socket or a file (DirectOutput, a script's `ptydeck attach`): the first screen is written to it
    // before process.stdin and process.stdout are built (sockets on a pipe, which load node:net: 3 ms of a 45 ms
    // command, bench figure 12). On a terminal, raw mode comes first (`stty`: the host draws the screen meanwhile).
    const direct = this.io.stdout instanceof DirectOutput;
    if (!direct) this.startTerminal();
    // On stderr before the screen is drawn: it never mixes with the session's output on stdout.
    this.io.stderr.write(`${styleFor(this.io.stderr).dim(this.statusLine())}\r\n`);
    // The screen, when it came with the snapshot (the handshake named the session), is drawn here; else in a later turn.
    panel.listen();
    // Where it did not (the host sends it once the screen is read, often in a packet after the snapshot's), the
    // terminal is built once it is drawn (onResync), not while it is on its way: building it first put node:net's
    // load between the screen's arrival and its write. Keys wait in stdin's buffer meanwhile; none could act sooner,
    // as stdout is not a terminal here, so stdin is not in raw mode, and a writer's keys are for the screen it sees.
    if (!direct || this.through !== null) this.startTerminal();
    return done;
  }

  /** This terminal's keys (raw mode, where it is one), its size and its going away: after the first screen where stdout is direct. */
  private startTerminal(): void {
    if (this.terminal || this.finished) return;
    const { disposables } = this;
    const terminal = (this.terminal = new RawTerminal(process.stdin, process.stdout));
    const onOutputError = () => this.finish(EXIT_FAILURE, 'this terminal went away');
    process.stdout.on('error', onOutputError);
    disposables.add(() => process.stdout.off('error', onOutputError));
    terminal.enterRaw();
    const onKeys = (chunk: Buffer) => this.onKeys(chunk);
    process.stdin.on('data', onKeys);
    disposables.add(() => process.stdin.off('data', onKeys));
    process.stdin.resume();
    if (this.writer) disposables.add(terminal.onResize((size) => this.applySize(size)));
  }

  private statusLine(): string {
    const { info } = this;
    const mode = this.info.status === 'lost' ? 'lost: its process is gone' : this.writer ? 'writing' : 'read-only (--write to type)';
    const local = this.terminal?.size();
    const larger = !this.writer && local && (local.cols < info.cols || local.rows < info.rows);
    const flat = printable(info.title);
    const title = flat.length > 24 ? `${flat.slice(0, 23)}…` : flat;
    const detach = `${DETACH_KEY_NAME} detaches`;
    const attached = `attached to ${this.short} "${title}" (${printable(ownerOf(info, this.panel.snapshot.agents))})`;
    const shortMode = this.info.status === 'lost' ? 'lost' : this.writer ? 'writing' : 'read-only';
    const size = `${info.cols}x${info.rows}`;
    // Shorter and shorter for a narrower terminal; the detach key is in every one.
    return fitLine(
      [
        `ptydeck: ${attached} · ${mode} · ${detach}${larger ? ` · session is ${size}, larger than here` : ''}`,
        `ptydeck: ${attached} · ${shortMode} · ${detach}${larger ? ` · session ${size}` : ''}`,
        `ptydeck ${this.short} · ${shortMode} · ${detach}${larger ? ` · ${size}` : ''}`,
      ],
      local?.cols,
    );
  }

  private onError(error: PanelError): void {
    // Before the first screen any error is about the attach; after it, a keystroke that raced the exit.
    if (this.through === null || error.code === 'no_such_session') this.finish(EXIT_FAILURE, error.message);
  }

  private onEvent(event: PtyEvent): void {
    const id = this.info.id;
    if (event.type === 'pty.updated' && event.info.id === id) this.sessionSize = { cols: event.info.cols, rows: event.info.rows };
    else if (event.type === 'pty.exited' && event.id === id) {
      this.exit = { exitCode: event.exitCode, signal: event.signal };
      this.settle();
    } else if (event.type === 'pty.removed' && event.id === id) {
      if (this.exit) this.finishExited();
      else this.finish(EXIT_FAILURE, `session ${this.short} was closed`);
    }
  }

  private onResync(screen: string, cursor: number): void {
    const first = this.through === null;
    // A fresh screen: whatever sequence the skipped stream had open is void, and so is one the screen might leave open.
    this.filter.reset();
    const drawn = this.filter.filter(screen);
    this.filter.reset();
    // A later resync follows a skip (this terminal fell behind a flood): start from a clean screen.
    this.write(first ? drawn : CLEAR_FOR_REDRAW + drawn, cursor);
    this.acked = cursor;
    // The terminal's keys, size and going away, held back for the first screen on a direct stdout (run).
    if (first) this.startTerminal();
    if (first && this.writer) this.takeSize(screen.includes(ALT_SCREEN_ON));
    if (this.info.status === 'lost') return this.finishLost();
    if (this.exit) this.settle();
  }

  /** A lost session's screen is all there is: nothing runs to print more. Ends once the screen is out. */
  private finishLost(): void {
    const message = `session ${this.short} is ${lostNote(this.info.lost)}; its process is gone. It stays listed until removed (close its tab in the panel).`;
    process.stdout.write('', () => this.finish(EXIT_LOST, message));
  }

  /** Output beyond the screen: the channel's cursor book already left out what the last resync's screen holds. */
  private onOutput(output: PanelOutput): void {
    if (output.id !== this.info.id || this.through === null) return;
    this.write(this.filter.filter(output.data), output.next);
    this.endNudge();
    if (this.exit) this.settle();
  }

  /** Writes to the local terminal and acknowledges the stream through `next` once it took the text. */
  private write(data: string, next: number): void {
    this.through = next;
    const { stdout } = this.io;
    if (!this.terminal && stdout instanceof DirectOutput) {
      // The first screen, before process.stdout is built (run): to the descriptor, acked once written.
      stdout.write(data);
      void stdout.drained().then(() => this.ack(next));
      return;
    }
    process.stdout.write(data, () => this.ack(next));
  }

  /** Acks in batches: at most one per turn of the event loop, for everything written by then. */
  private ack(cursor: number): void {
    if (cursor <= this.acked || this.finished) return;
    this.acked = cursor;
    if (this.ackScheduled) return;
    this.ackScheduled = true;
    setImmediate(() => {
      this.ackScheduled = false;
      if (!this.finished) this.panel.channel.ack(this.info.id, this.acked);
    });
  }

  /**
   * A writer's size applies to the session. A program whose screen was
   * restored at another size redraws on the SIGWINCH this sends. One on the
   * alternate screen at the same size is nudged: one row less, then back
   * once it answered with output (or after NUDGE_MS), since a serialized
   * screen cannot replay what the program keeps only in its own state. Both
   * changes at once could reach it as one SIGWINCH with no size change.
   */
  private takeSize(nudge: boolean): void {
    const local = this.localSize();
    if (!local) return;
    if (!nudge || local.cols !== this.sessionSize.cols || local.rows !== this.sessionSize.rows) return this.applySize(local);
    this.sendSize({ cols: local.cols, rows: local.rows > MIN_ROWS ? local.rows - 1 : local.rows + 1 });
    this.nudgeTimer = setTimeout(() => this.endNudge(), NUDGE_MS);
  }

  /** Back to this terminal's size after a nudge. */
  private endNudge(): void {
    if (this.nudgeTimer === undefined) return;
    clearTimeout(this.nudgeTimer);
    this.nudgeTimer = undefined;
    const local = this.localSize();
    if (local) this.applySize(local);
  }

  private applySize(size: TerminalSize): void {
    const local = clampSize(size);
    if (local.cols !== this.sessionSize.cols || local.rows !== this.sessionSize.rows) this.sendSize(local);
  }

  private sendSize(size: TerminalSize): void {
    this.sessionSize = size;
    this.panel.channel.resize(this.info.id, size.cols, size.rows);
  }

  private localSize(): TerminalSize | undefined {
    const size = this.terminal?.size();
    return size && clampSize(size);
  }

  private onKeys(chunk: Buffer): void {
    const verdict = this.keys.feed(chunk);
    if (this.writer && verdict.forward.length > 0 && !this.exit) {
      // The latest writer to type sets the size (tmux's window-size latest): another may have resized since.
      const local = this.localSize();
      if (local) this.applySize(local);
      const data = this.decoder.write(Buffer.from(verdict.forward));
      if (data.length > 0) this.panel.channel.input(this.info.id, data);
    }
    if (verdict.detach) this.finish(EXIT_OK, `detached from ${this.short}; it keeps running (ptydeck attach ${this.short} to come back)`);
  }

  /**
   * The panel connection closed unasked: says whether the host is gone (and
   * what to do) or only the connection dropped while the host runs on.
   */
  private async hostClosed(why: string): Promise<void> {
    const { hostPid } = this.panel;
    if (await waitForExit(hostPid, HOST_EXIT_WAIT_MS)) {
      return this.finish(
        EXIT_FAILURE,
        `the ptydeck host (pid ${hostPid}) is gone: it exited, was stopped or was killed, and session ${this.short} with it. ` +
          'Run `ptydeck` to start a new host; `ptydeck ls` then shows what it kept of your sessions (as lost).',
      );
    }
    this.finish(EXIT_FAILURE, `lost the ptydeck host (pid ${hostPid}), which still runs: ${why}. Attach again with \`ptydeck attach ${this.short}\`; \`ptydeck status\` says how the host is.`);
  }

  private settle(): void {
    clearTimeout(this.settleTimer);
    this.settleTimer = setTimeout(() => this.finishExited(), EXIT_SETTLE_MS);
  }

  /** Ends with the session's own exit code; a signal gives 128 + its number, as a shell reports it. */
  private finishExited(): void {
    const { exitCode, signal } = this.exit ?? { exitCode: null, signal: null };
    const number = signal === null ? undefined : signalNumber(signal as NodeJS.Signals);
    const code = signal !== null ? 128 + (number ?? 0) : (exitCode ?? EXIT_FAILURE);
    this.finish(code, `session ${this.short} ended: ${signal !== null ? `killed by ${signal}` : `exit code ${exitCode ?? 'unknown'}`}`);
  }

  private finish(code: number, message: string): void {
    if (this.finished) return;
    this.finished = true;
    clearTimeout(this.settleTimer);
    clearTimeout(this.nudgeTimer);
    this.disposables.dispose();
    this.terminal?.restore();
    this.panel.close();
    try {
      this.io.stderr.write(`\r\n${message}\n`);
    } catch {
      // The terminal is gone (SIGHUP): nobody is left to read it.
    }
    this.resolve(code);
  }
}

/**
 * The first of `lines` that fits in `cols` columns (counted as code points), else the last cut to fit
 * with an ellipsis. A status line that wrapped left its tail on the line the screen is drawn below.
 */
export function fitLine(lines: readonly string[], cols: number | undefined): string {
  if (cols === undefined) return lines[0]!;
  const fitting = lines.find((line) => [...line].length <= cols);
  if (fitting !== undefined) return fitting;
  return `${[...lines.at(-1)!].slice(0, Math.max(0, cols - 1)).join('')}…`;
}

function clampSize(size: TerminalSize): TerminalSize {
  return { cols: Math.min(MAX_COLS, Math.max(MIN_COLS, size.cols)), rows: Math.min(MAX_ROWS, Math.max(MIN_ROWS, size.rows)) };
}

/** A signal's number (os.constants), node:os loaded only when a signal needs naming: not on attach's way to its first frame (bench figure 12). */
function signalNumber(signal: NodeJS.Signals): number {
  return nodeOs().constants.signals[signal];
}
