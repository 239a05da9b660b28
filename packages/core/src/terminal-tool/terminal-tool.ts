// The agent terminal tool: create, run, send, read, wait, close and list over the PTY service, fenced per owner.
import { DisposableStore, reportError, type SessionInfo } from '@ptydeck/contract';
import { ptySessionCapability } from '../capability/terminal-capability.js';
import type { PtyService } from '../pty/types.js';
import { SessionFacts } from '../facts/index.js';
import { ScreenService } from '../screen/index.js';
import { AgentPatterns } from './agent-patterns.js';
import { AgentTerminal } from './agent-terminal.js';
import { TerminalToolError, fromPtyError, noSuchTerminal, terminalExited, unlessNotRunning } from './errors.js';
import { boundText } from './model-text.js';
import { KEY_NAMES, encodeKeys } from './keys.js';
import { OwnedProcesses } from './owned-processes.js';
import { OwnedSessions, type TerminalOwner } from './owned-sessions.js';
import { isSandboxed } from './pid-view.js';
import { mayNamePortInUse, portsInUse } from './port-in-use.js';
import { streamProgress } from './progress.js';
import type { CloseResult, CreateResult, ListedPort, ListResult, OutputResult, ReadResult, RunResult, WaitResult } from './results.js';
import { listTerminals, readNew, terminalFields, withPorts } from './result-builder.js';
import { AGENT_ENV, ShellLauncher, checkCwd, shellQuote } from './shell-launch.js';
import { CloseInput, CreateInput, DEFAULT_MAX_BYTES, ReadInput, RunInput, SendInput, WaitInput, parseInput } from './tool-schemas.js';
import { checkPortWait, compilePattern, waitForExit, waitForIdle, waitForPattern, waitForPort, waitForQuiet, type WaitOutcome } from './waits.js';
import type { SessionRef } from '../pty/session-processes.js';
import { titleOf } from './command-title.js';
import { nextLoopTurn } from '../common/loop-turn.js';

export type { CloseResult, CreateResult, ListedTerminal, ListResult, OutputResult, ReadResult, RunResult, WaitResult } from './results.js';
export type { TerminalOwner } from './owned-sessions.js';


export type { TerminalTool, TerminalToolOptions, ToolCallHooks } from './terminal-tool-api.js';
import type { TerminalTool, TerminalToolOptions, ToolCallHooks } from './terminal-tool-api.js';

/** Lets the event loop run whatever waits (a keystroke, a panel's frame) before the next step of a result. */
const nextTurn = nextLoopTurn;

export function createTerminalTool(service: PtyService, options: TerminalToolOptions = {}): TerminalTool {
  return new TerminalToolImpl(service, options);
}

class TerminalToolImpl implements TerminalTool {
  private readonly owned: OwnedSessions;
  private readonly launcher: ShellLauncher;
  private readonly subscriptions = new DisposableStore();
  private readonly shellStartMs: number;
  private readonly screens: ScreenService;
  private readonly processes: OwnedProcesses;
  /** The owners' read positions when the tool let go of its sessions, for the session store's last write. */
  private cursorsAtDispose: Map<string, number> | undefined;
  private readonly patterns = new AgentPatterns();

  constructor(
    private readonly service: PtyService,
    private readonly options: TerminalToolOptions,
  ) {
    this.processes = new OwnedProcesses(service.labels, (id) => service.get(id) !== undefined);
    let facts = options.facts;
    if (!facts) {
      facts = new SessionFacts(service);
      this.subscriptions.add(facts);
    }
    this.owned = new OwnedSessions(service, facts, options.maxLivePerOwner ?? 16, options.maxExitedPerOwner ?? 20, options.maxOrphanedLive ?? 8);
    this.launcher = new ShellLauncher(service, facts, this.owned, options);
    this.shellStartMs = options.shellStartMs ?? 10_000;
    if (options.screens) {
      this.screens = options.screens;
    } else {
      this.screens = new ScreenService(service);
      this.subscriptions.add(this.screens);
    }
    for (const unsubscribe of [
      service.on('pty.data', (event) => this.owned.get(event.id)?.ingest()),
      service.on('pty.input', (event) => this.owned.get(event.id)?.inputWritten(event.from, event.data)),
      service.on('pty.exited', (event) => {
        const session = this.owned.get(event.id);
        if (!session) return;
        session.markExited();
        this.owned.evictExited(session.ownerId);
      }),
      service.on('pty.removed', (event) => {
        const session = this.owned.delete(event.id);
        this.processes.forget(event.id);
        session?.markRemoved();
        session?.dispose();
      }),
    ]) this.subscriptions.add(unsubscribe);
  }

  async create(owner: TerminalOwner, rawInput: CreateInput): Promise<CreateResult> {
    const input = parseInput(CreateInput, rawInput);
    const session = await this.launcher.start(owner, input);
    // A new shell is useful once it shows its prompt; wait for it so the first run does not race startup.
    await session.strategy?.settleNewShell(session, this.shellStartMs);
    const info = this.infoOf(session);
    return {
      ...terminalFields(session, info),
      pid: this.processes.programPid(this.refOf(session)),
      title: info.title,
      cwd: session.cwd,
      command: [info.command, ...info.args].join(' '),
      terminal: ptySessionCapability({ cols: info.cols, rows: info.rows }, { ...AGENT_ENV, ...this.options.env, ...input.env }),
      ...(info.sandbox ? { sandbox: info.sandbox } : {}),
    };
  }

  async run(owner: TerminalOwner, rawInput: RunInput, hooks: ToolCallHooks = {}): Promise<RunResult> {
    const input = parseInput(RunInput, rawInput);
    const started = Date.now();
    const deadline = started + input.timeout_ms;
    const cwd = input.cwd === undefined ? undefined : checkCwd(input.cwd);
    let session: AgentTerminal;
    let command = input.command;
    if (input.id === undefined) {
      session = await this.launcher.start(owner, { cwd, title: titleOf(input.command) });
      await session.strategy?.beforeFirstRun(session, this.shellStartMs, hooks.signal);
    } else {
      session = this.lookup(owner, input.id);
      if (cwd !== undefined) command = `cd -- ${shellQuote(cwd)} && ${command}`;
    }
    if (session.exited) throw terminalExited(this.infoOf(session));
    if (!session.strategy) {
      throw new TerminalToolError(
        'not_a_shell',
        `Terminal ${session.id} runs ${this.infoOf(session).command}, not a shell, so terminal_run cannot run commands in it. Use terminal_send to type into it, or call terminal_run without id to get a shell.`,
      );
    }
    return session.strategy.run(session, {
      command,
      caller: owner.id,
      started,
      deadline,
      maxBytes: input.max_bytes ?? DEFAULT_MAX_BYTES,
      shellStartMs: this.shellStartMs,
      info: () => this.infoOf(session),
      finish: (result) => this.withPortsSliced(result, session, result.output, input.command, owner.id),
      signal: hooks.signal,
      onProgress: hooks.onProgress,
    });
  }

  async send(owner: TerminalOwner, rawInput: SendInput, hooks: ToolCallHooks = {}): Promise<OutputResult> {
    const input = parseInput(SendInput, rawInput);
    const session = this.lookup(owner, input.id);
    if (input.text === undefined && (input.keys === undefined || input.keys.length === 0)) {
      throw new TerminalToolError('invalid_input', 'Nothing to send: give text, keys, or both.');
    }
    const keys = encodeKeys(input.keys ?? [], session.appCursor);
    if (!keys.ok) {
      throw new TerminalToolError(
        'invalid_input',
        `Unknown key name(s): ${keys.unknown.map((k) => JSON.stringify(k)).join(', ')}. Valid keys: ${KEY_NAMES.join(', ')} (letters a-z for Ctrl-<letter>). Use text for literal characters.`,
      );
    }
    if (session.exited) throw terminalExited(this.infoOf(session));
    const sentAt = session.end;
    const promptsBefore = session.tracker.commandsDone;
    try {
      session.typeRaw((input.text ?? '') + keys.data);
    } catch (error) {
      throw fromPtyError(error);
    }

    await waitForQuiet(session, sentAt, promptsBefore, Date.now() + input.wait_ms, hooks.signal);
    return await readNew(owner.id, session, this.infoOf(session), input.max_bytes);
  }

  async read(owner: TerminalOwner, rawInput: ReadInput, hooks: ToolCallHooks = {}): Promise<ReadResult> {
    const input = parseInput(ReadInput, rawInput);
    const session = this.lookup(owner, input.id);
    const maxBytes = input.max_bytes ?? DEFAULT_MAX_BYTES;
    if (input.mode === 'screen') {
      const screen = await this.screens.text(session.id);
      const { text, truncated } = boundText(screen.text, maxBytes);
      return { mode: 'screen', output: text, truncated, cursor: session.cursorOf(owner.id), skipped: 0, ...terminalFields(session, this.infoOf(session)) };
    }
    if (input.mode === 'all') {
      const end = session.safeEnd;
      // What is read is taken in this turn; its windows render in turns of their own.
      const rendering = session.view.readInTurns(0, end, maxBytes, nextTurn);
      session.advanceCursor(owner.id, end);
      // The terminal as it is in this turn; the output goes in once rendered.
      const told: ReadResult = { mode: 'all', output: '', truncated: false, cursor: session.cursorOf(owner.id), skipped: 0, ...terminalFields(session, this.infoOf(session)) };
      const all = await rendering;
      return { ...told, output: all.text, truncated: all.truncated, skipped: all.skipped };
    }
    if (input.wait_ms > 0) {
      const cursor = session.cursorOf(owner.id);
      await session.waitFor(() => session.safeEnd > cursor || session.exited, input.wait_ms, hooks.signal);
    }
    return { mode: 'new', ...(await readNew(owner.id, session, this.infoOf(session), input.max_bytes)) };
  }

  async wait(owner: TerminalOwner, rawInput: WaitInput, hooks: ToolCallHooks = {}): Promise<WaitResult> {
    const input = parseInput(WaitInput, rawInput);
    const session = this.lookup(owner, input.id);
    const regex = input.until === 'pattern' ? compilePattern(input.pattern) : null;
    if (regex) this.patterns.admit(owner.id);
    checkPortWait(input.until, input.port);
    const started = Date.now();
    const deadline = started + input.timeout_ms;
    const { tracker } = session;
    // A command typed by terminal_run whose output-start mark is still on its way, or a line sent
    // with terminal_send (`exit 3\r`) the shell has not read yet: the prompt still on screen is not
    // the shell's answer to it, so wait for what the line does before judging the shell idle.
    const unread = () => tracker.phase === 'typed' || session.runQueued || tracker.lineUnread;
    if (input.until === 'exit' && unread()) {
      await session.waitFor(() => !unread() || session.exited, input.timeout_ms, hooks.signal);
    }
    const running = tracker.running;
    // A shell back at its prompt has nothing left to finish: report its last command instead of waiting for the shell to exit.
    // Not while a sent line is still unread (the wait above timed out): that is a timeout, not the last command's end.
    const finished = !running && input.until === 'exit' && !session.exited && !tracker.lineUnread ? tracker.lastFinished : null;
    if (finished) {
      await this.settle(session, deadline, hooks.signal);
      const result = await readNew(owner.id, session, this.infoOf(session), input.max_bytes);
      const waited: WaitResult = { reason: 'exit', scope: 'command', ...result, exit_code: finished.exitCode, elapsed_ms: Date.now() - started };
      return this.withPortsSliced(waited, session, result.output, undefined, owner.id);
    }
    const scope: WaitResult['scope'] = running ? 'command' : 'process';
    const from = session.cursorOf(owner.id);
    const stopProgress = streamProgress(session, hooks.onProgress, () => ({ start: from, end: running?.outputEnd ?? session.safeEnd }));
    // A program that stops to ask for input ends any wait, once per prompt: a wait after the caller was told goes on.
    const asks = () => session.attentionNewFor(owner.id);
    let outcome: WaitOutcome;
    let ports: ListedPort[] | undefined;
    try {
      if (input.until === 'exit') {
        outcome = await waitForExit(session, running, deadline, hooks.signal, asks);
        if (outcome.reason === 'exit' && running) await this.settle(session, deadline, hooks.signal);
      } else if (input.until === 'port') {
        const ref = this.refOf(session);
        const find = async () =>
          (input.port === undefined ? await this.processes.openedInTurns(ref, nextTurn, true) : await this.processes.listeningInTurns(ref, input.port, nextTurn)) ?? [];
        outcome = await waitForPort(session, async () => (ports = await find()).length > 0, deadline, hooks.signal, asks);
      } else if (input.until === 'idle') {
        outcome = await waitForIdle(session, input.idle_ms, started, deadline, hooks.signal, asks);
      } else {
        outcome = await waitForPattern(session, (text) => this.patterns.match(owner.id, regex!, text), from, deadline, hooks.signal, asks);
      }
    } finally {
      stopProgress();
    }
    const done = scope === 'command' && running?.outputEnd != null ? running : undefined;
    const result = await readNew(owner.id, session, this.infoOf(session), input.max_bytes, done);
    if (outcome.reason !== 'port') {
      const ref = this.refOf(session);
      await nextTurn(); // the rendering above and the process scan each in turns of their own (see withPortsSliced)
      ports = await this.processes.openedInTurns(ref, nextTurn);
    }
    const waited: WaitResult = {
      reason: outcome.reason,
      scope,
      ...(outcome.match !== undefined ? { match: outcome.match } : {}),
      ...result,
      // A command the shell died under (`exit 3`) has no exit code of its own: process_exit_code says it.
      ...(done && done.exitCode !== null ? { exit_code: done.exitCode } : {}),
      elapsed_ms: Date.now() - started,
    };
    await nextTurn();
    return withPorts(waited, ports, portsInUse(result.output, undefined, this.service, this.owned, owner.id));
  }

  async close(owner: TerminalOwner, rawInput: CloseInput): Promise<CloseResult> {
    const input = parseInput(CloseInput, rawInput);
    const session = this.lookup(owner, input.id);
    const [closed, ended] = await this.processes.close(
      this.refOf(session),
      input.force,
      // A session that exits meanwhile has nothing left to kill: its removal ends the rest.
      async () => (session.exited ? undefined : this.service.kill(session.id, input.force ? 'SIGKILL' : undefined).catch(unlessNotRunning)),
      async (): Promise<CloseResult> => {
        const info = this.infoOf(session);
        // Taken before the session is removed; a long output's windows render in turns of their own.
        const rendering = session.view.readInTurns(session.cursorOf(owner.id), session.end, DEFAULT_MAX_BYTES, nextTurn);
        await this.service.remove(session.id);
        const unread = await rendering;
        return { id: session.id, process_exit_code: info.exitCode, process_signal: info.signal, output: unread.text, truncated: unread.truncated };
      },
    );
    return { ...closed, ...ended };
  }

  async list(owner: TerminalOwner): Promise<ListResult> {
    const sessions = this.owned.ofOwner(owner.id).filter((session) => this.service.get(session.id));
    const processes = await this.processes.list(sessions.map((session) => this.refOf(session)), nextTurn);
    // A session closed while the table was read is left out, as one closed before the call.
    return listTerminals(this.service, owner.id, sessions, processes);
  }

  async closeOwner(ownerId: string): Promise<void> {
    await Promise.all(
      this.owned.ofOwner(ownerId).map((s) => this.service.remove(s.id).catch((error: unknown) => reportError(error, `closing terminal ${s.id} failed`))),
    );
  }

  ownerDisconnected(ownerId: string): void {
    this.owned.markDeparted(ownerId);
  }

  ownerReturned(ownerId: string): void {
    this.owned.markReturned(ownerId);
  }

  adoptRestored(info: SessionInfo, cursor: number | null): void {
    this.owned.adoptRestored(info, cursor);
  }

  agentCursorOf(id: string): number | null {
    if (this.cursorsAtDispose) return this.cursorsAtDispose.get(id) ?? null;
    return this.owned.ownerCursorOf(id);
  }

  dispose(): void {
    // A host stops the tool before its sessions and flushes the store after them: without these, that last
    // write would find no reader and forget where each agent had read (issue 32, item 5).
    this.cursorsAtDispose ??= new Map();
    this.subscriptions.dispose();
    this.patterns.dispose();
    for (const session of this.owned.clear()) {
      this.cursorsAtDispose.set(session.id, session.cursorOf(session.ownerId));
      session.dispose();
    }
    this.launcher.dispose();
    this.processes.dispose();
  }

  private async settle(session: AgentTerminal, deadline: number, signal?: AbortSignal): Promise<void> {
    const strategy = session.strategy;
    if (strategy && !session.exited) await strategy.settle(session, Math.min(strategy.settleMs, Math.max(0, deadline - Date.now())), signal);
  }

  /**
   * The result with the ports the session opened and the taken ports its
   * output names, each looked up in a turn of its own. After a long output,
   * rendering it and reading the kernel's socket and process tables (several
   * ms each on a busy machine) held the loop in one piece: 10 to 30 ms of CPU
   * at the end of a terminal_run of a 4 MiB log (bench figure 8). A look
   * (when a new socket listens on the machine) reads the process table in
   * slices of its own, the first of a host every process's stat line, labels
   * and descriptors (OwnedProcesses.openedInTurns).
   */
  private async withPortsSliced<T extends RunResult | WaitResult>(result: T, session: AgentTerminal, output: string, command: string | undefined, caller: string): Promise<T> {
    // Before the turn ends: the session may be closed and removed meanwhile.
    const ref = this.refOf(session);
    // Most results: the socket count has not moved and the output names no taken port, so nothing costly is read.
    if (this.processes.nothingOpened(ref) && !mayNamePortInUse(output)) return result;
    await nextTurn();
    const opened = await this.processes.openedInTurns(ref, nextTurn);
    await nextTurn();
    return withPorts(result, opened, portsInUse(output, command, this.service, this.owned, caller));
  }

  private lookup(owner: TerminalOwner, id: string): AgentTerminal {
    const session = this.owned.lookup(owner.id, id);
    if (!this.service.get(id)) throw noSuchTerminal(id);
    return session;
  }

  /** The session as the process table knows it: its pid names its tree only while it runs. */
  private refOf(session: AgentTerminal): SessionRef {
    const info = this.infoOf(session);
    return { id: session.id, pid: info.pid, running: info.status === 'running', wrapped: isSandboxed(info) };
  }

  private infoOf(session: AgentTerminal): SessionInfo {
    const info = this.service.get(session.id);
    if (!info) throw noSuchTerminal(session.id);
    return info;
  }
}
