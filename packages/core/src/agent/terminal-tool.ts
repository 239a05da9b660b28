import { statSync, existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, isAbsolute, join } from 'node:path';
import type { SessionId, SessionInfo } from '@ptydeck/contract';
import { z } from 'zod';
import { ptySessionCapability, type TerminalCapability } from '../capability/terminal-capability.js';
import { PtyError, type PtyService } from '../pty/types.js';
import { AgentSession, type TerminalState } from './agent-session.js';
import { TerminalToolError, noSuchTerminal } from './errors.js';
import { looksLikeShellPrompt, type InputPromptKind } from './input-prompts.js';
import { KEY_NAMES, encodeKeys } from './keys.js';
import { execWithin, RegexTimeoutError } from './bounded-regex.js';
import { boundText } from './model-text.js';
import { bashRunInput, integrationFor, newNonce, nonceRunInput, writeShellIntegration } from './shell-integration.js';
import {
  CloseInput,
  CreateInput,
  DEFAULT_MAX_BYTES,
  ReadInput,
  RunInput,
  SendInput,
  WaitInput,
} from './tool-schemas.js';

/** Who is calling: an MCP connection's id (sessions are scoped to it) and its client name. */
export interface TerminalOwner {
  id: string;
  name?: string;
}

/** What the terminal looks like to programs in it, as reported to agents. */
export type TerminalCapabilityInfo = TerminalCapability;

export interface TerminalToolOptions {
  /** Live agent sessions allowed per owner. Default 16. */
  maxLivePerOwner?: number;
  /** Exited sessions kept readable per owner; the oldest is removed first. Default 20. */
  maxExitedPerOwner?: number;
  /** Program for interactive agent shells. Default: $SHELL when it is bash, else bash, else $SHELL or sh. */
  shell?: string;
  /** Environment added to every agent session, before the caller's own env. Default PAGER=cat, GIT_PAGER=cat. */
  env?: Record<string, string>;
  cols?: number;
  rows?: number;
  /** How long a new shell may take to show its first prompt before terminal_run falls back to nonce marks. Default 10 s. */
  shellStartMs?: number;
}

export interface ToolCallHooks {
  /** Called with new plain-text output while a run or wait is in progress. */
  onProgress?: (text: string) => void;
  /** Aborts the wait (the command keeps running). */
  signal?: AbortSignal;
}

interface StatusFields {
  id: string;
  status: 'running' | 'exited';
  state: TerminalState;
  /** Set when state is waiting_for_input: what kind of input is asked for. */
  prompt?: InputPromptKind;
  exit_code: number | null;
  signal: string | null;
}

export interface CreateResult extends StatusFields {
  pid: number;
  title: string;
  cwd: string;
  command: string;
  terminal: TerminalCapabilityInfo;
}

export interface RunResult extends StatusFields {
  /** completed: the command finished; running: timeout passed first; exited: the process itself ended. */
  outcome: 'completed' | 'running' | 'exited';
  output: string;
  truncated: boolean;
  elapsed_ms: number;
  cwd: string;
}

export interface OutputResult extends StatusFields {
  output: string;
  truncated: boolean;
  /** Your read position after this call (absolute byte offset in the session's output). */
  cursor: number;
  /** Bytes lost before your cursor because the retained log was trimmed. */
  skipped: number;
  /** Exit code of a shell command that finished within this output, when the shell reports it. */
  command_exit_code?: number | null;
}

export interface ReadResult extends OutputResult {
  mode: 'new' | 'screen' | 'all';
}

export interface WaitResult extends OutputResult {
  reason: 'exit' | 'idle' | 'pattern' | 'timeout';
  /** 'command' when the wait followed a command in a shell, 'process' for the process itself. */
  scope: 'command' | 'process';
  match?: string;
  elapsed_ms: number;
}

export interface CloseResult {
  id: string;
  exit_code: number | null;
  signal: string | null;
  output: string;
  truncated: boolean;
}

export interface ListedTerminal {
  id: string;
  title: string;
  command: string;
  cwd: string;
  status: 'running' | 'exited';
  state: TerminalState;
  exit_code: number | null;
  unread_bytes: number;
  created_at: number;
}

export interface TerminalTool {
  create(owner: TerminalOwner, input: CreateInput): Promise<CreateResult>;
  run(owner: TerminalOwner, input: RunInput, hooks?: ToolCallHooks): Promise<RunResult>;
  send(owner: TerminalOwner, input: SendInput, hooks?: ToolCallHooks): Promise<OutputResult>;
  read(owner: TerminalOwner, input: ReadInput, hooks?: ToolCallHooks): Promise<ReadResult>;
  wait(owner: TerminalOwner, input: WaitInput, hooks?: ToolCallHooks): Promise<WaitResult>;
  close(owner: TerminalOwner, input: CloseInput): Promise<CloseResult>;
  list(owner: TerminalOwner): { terminals: ListedTerminal[] };
  /** Ends and removes every session of one owner (e.g. when its connection goes away for good). */
  closeOwner(ownerId: string): Promise<void>;
  /** Stops following the service and removes the generated shell files; sessions stay in the service. */
  dispose(): void;
}

const SEND_QUIET_MS = 200;
/** Longest one pattern match may run over new output before the wait gives up on the pattern. */
const PATTERN_BUDGET_MS = 500;
/** Longest wait for the prompt after a command's done mark (they normally arrive together). */
const PROMPT_SETTLE_MS = 2000;
/** The same for shells without integration, where a prompt is only recognised by its look. */
const NONCE_PROMPT_SETTLE_MS = 500;
const DEFAULT_ENV = { PAGER: 'cat', GIT_PAGER: 'cat' };

export function createTerminalTool(service: PtyService, options: TerminalToolOptions = {}): TerminalTool {
  return new TerminalToolImpl(service, options);
}

class TerminalToolImpl implements TerminalTool {
  private readonly sessions = new Map<SessionId, AgentSession>();
  private readonly unsubscribes: Array<() => void> = [];
  private shellFiles: ReturnType<typeof writeShellIntegration> | null = null;
  private readonly maxLive: number;
  private readonly maxExited: number;

  constructor(
    private readonly service: PtyService,
    private readonly options: TerminalToolOptions,
  ) {
    this.maxLive = options.maxLivePerOwner ?? 16;
    this.maxExited = options.maxExitedPerOwner ?? 20;
    this.unsubscribes.push(
      service.on('pty.data', (event) => this.sessions.get(event.id)?.ingest(event)),
      service.on('pty.updated', (event) => this.sessions.get(event.info.id)?.resizeMirror(event.info.cols, event.info.rows)),
      service.on('pty.exited', (event) => {
        const session = this.sessions.get(event.id);
        if (!session) return;
        session.markExited();
        this.evictExited(session.ownerId);
      }),
      service.on('pty.removed', (event) => {
        const session = this.sessions.get(event.id);
        if (!session) return;
        this.sessions.delete(event.id);
        session.markRemoved();
        session.dispose();
      }),
    );
  }

  async create(owner: TerminalOwner, rawInput: CreateInput): Promise<CreateResult> {
    const input = parse(CreateInput, rawInput);
    const session = this.spawn(owner, input);
    // A new shell is useful once it shows its prompt; wait for it so the first run does not race startup.
    if (session.integration === 'bash') {
      await session.waitFor(() => session.atPrompt || session.exited, this.options.shellStartMs ?? 10_000);
    }
    const info = this.infoOf(session);
    return {
      ...this.statusOf(session, info),
      pid: info.pid,
      title: info.title,
      cwd: session.cwd,
      command: [info.command, ...info.args].join(' '),
      terminal: this.capabilityOf(info, input.env),
    };
  }

  async run(owner: TerminalOwner, rawInput: RunInput, hooks: ToolCallHooks = {}): Promise<RunResult> {
    const input = parse(RunInput, rawInput);
    const started = Date.now();
    const deadline = started + input.timeout_ms;
    const cwd = input.cwd === undefined ? undefined : checkCwd(input.cwd);
    let session: AgentSession;
    let command = input.command;
    if (input.id === undefined) {
      session = this.spawn(owner, { cwd });
      // The timeout is for the command: a new shell first gets its own start window.
      if (session.integration === 'bash') {
        await session.waitFor(() => session.atPrompt || session.exited, this.options.shellStartMs ?? 10_000, hooks.signal);
      }
    } else {
      session = this.lookup(owner, input.id);
      if (cwd !== undefined) command = `cd -- ${shellQuote(cwd)} && ${command}`;
    }
    if (session.exited) throw exitedError(session, this.infoOf(session));
    if (session.integration === 'none') {
      throw new TerminalToolError(
        'not_a_shell',
        `Terminal ${session.id} runs ${basename(this.infoOf(session).command)}, not a shell, so terminal_run cannot run commands in it. Use terminal_send to type into it, or call terminal_run without id to get a shell.`,
      );
    }
    if (session.integration === 'bash' && !session.atPrompt && !session.runningCommand && !session.altScreen) {
      // Starting up (slow startup files), or between a command's end and the next prompt: wait for the prompt.
      await session.waitFor(
        () => session.atPrompt || session.exited || session.runningCommand !== null,
        Math.max(0, deadline - Date.now()),
        hooks.signal,
      );
      // A prompt without marks after the start window: startup files replaced our hooks; fall back to nonce marks.
      const sinceStart = Date.now() - this.infoOf(session).createdAt;
      if (!session.integrationSeen && sinceStart >= (this.options.shellStartMs ?? 10_000) && looksLikeShellPrompt(session.tail())) {
        session.integration = 'nonce';
      }
    }
    const { state } = session.state();
    const starting = session.integration === 'bash' && !session.integrationSeen && !session.exited;
    if (session.runQueued || session.runPending || session.runningCommand || (session.integration === 'bash' && !starting && state !== 'idle_at_prompt')) {
      throw new TerminalToolError(
        'busy',
        `Terminal ${session.id} is busy (state: ${state}): a command is still running or a program has the terminal. Wait with terminal_wait, interrupt with terminal_send keys ["Ctrl-C"], or omit id to run in a new shell.`,
      );
    }
    if (starting) {
      // The shell is still reading its startup files: type the command once its first prompt shows,
      // so it is not echoed raw by the terminal before readline takes over.
      session.runQueued = true;
      const off = session.onChange(() => {
        if (!session.atPrompt && !session.exited) return;
        off();
        session.runQueued = false;
        if (session.exited) return;
        session.noteRunSent();
        this.service.write(session.id, bashRunInput(command));
      });
      return {
        ...this.statusOf(session, this.infoOf(session)),
        outcome: 'running',
        output: '',
        truncated: false,
        elapsed_ms: Date.now() - started,
        cwd: session.cwd,
      };
    }

    const doneBefore = session.commandsDone;
    const sendCursor = session.end;
    session.noteRunSent();
    if (session.integration === 'bash') {
      this.service.write(session.id, bashRunInput(command));
    } else {
      const nonce = newNonce();
      session.beginNonceRun(nonce, sendCursor);
      this.service.write(session.id, nonceRunInput(command, nonce));
    }
    const ourCommand = () => (session.commandsDone > doneBefore || session.runningCommand ? session.commands[session.commands.length - 1]! : null);
    const stopProgress = this.streamProgress(session, hooks, () => ourCommand()?.outputStart ?? null);
    const finished = await session.waitFor(
      () => session.commandsDone > doneBefore || session.exited,
      Math.max(0, deadline - Date.now()),
      hooks.signal,
    );
    stopProgress();
    if (finished) await this.settlePrompt(session, deadline, hooks.signal);
    const record = ourCommand();
    const info = this.infoOf(session);
    const from = record?.outputStart ?? sendCursor;
    const to = finished && record?.outputEnd != null ? record.outputEnd : session.safeEnd;
    const bounded = boundText(session.render(from, to).text, input.max_bytes ?? DEFAULT_MAX_BYTES);
    session.setCursor(owner.id, session.safeEnd);
    const completed = finished && session.commandsDone > doneBefore;
    const status = this.statusOf(session, info);
    return {
      ...status,
      exit_code: completed ? (record?.exitCode ?? null) : status.exit_code,
      outcome: completed ? 'completed' : session.exited ? 'exited' : 'running',
      output: bounded.text,
      truncated: bounded.truncated,
      elapsed_ms: Date.now() - started,
      cwd: session.cwd,
    };
  }

  async send(owner: TerminalOwner, rawInput: SendInput, hooks: ToolCallHooks = {}): Promise<OutputResult> {
    const input = parse(SendInput, rawInput);
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
    if (session.exited) throw exitedError(session, this.infoOf(session));
    const data = (input.text ?? '') + keys.data;
    const sendCursor = session.end;
    session.expectEcho(sendCursor, data);
    const promptsBefore = session.commandsDone;
    this.service.write(session.id, data);

    // Collect output until it goes quiet, the shell's prompt returns, the process exits, or wait_ms passes.
    const deadline = Date.now() + input.wait_ms;
    while (Date.now() < deadline && !session.exited && !hooks.signal?.aborted) {
      const sawOutput = session.end > sendCursor;
      if (sawOutput && session.commandsDone > promptsBefore && session.atPrompt) break;
      const endBefore = session.end;
      const window = sawOutput ? Math.min(SEND_QUIET_MS, deadline - Date.now()) : deadline - Date.now();
      await session.waitFor(() => session.end > endBefore || session.exited, Math.max(0, window), hooks.signal);
      if (sawOutput && session.end === endBefore) break;
    }
    return this.readNew(owner, session, input.max_bytes);
  }

  async read(owner: TerminalOwner, rawInput: ReadInput, hooks: ToolCallHooks = {}): Promise<ReadResult> {
    const input = parse(ReadInput, rawInput);
    const session = this.lookup(owner, input.id);
    const maxBytes = input.max_bytes ?? DEFAULT_MAX_BYTES;
    if (input.mode === 'screen') {
      const screen = await session.screen();
      const bounded = boundText(screen.text, maxBytes);
      return {
        ...this.statusOf(session, this.infoOf(session)),
        mode: 'screen',
        output: bounded.text,
        truncated: bounded.truncated,
        cursor: session.cursorOf(owner.id),
        skipped: 0,
      };
    }
    if (input.mode === 'all') {
      const rendered = session.render(0, session.safeEnd);
      const bounded = boundText(rendered.text, maxBytes);
      session.setCursor(owner.id, session.safeEnd);
      return {
        ...this.statusOf(session, this.infoOf(session)),
        mode: 'all',
        output: bounded.text,
        truncated: bounded.truncated,
        cursor: session.cursorOf(owner.id),
        skipped: rendered.skipped,
      };
    }
    if (input.wait_ms > 0) {
      const cursor = session.cursorOf(owner.id);
      await session.waitFor(() => session.safeEnd > cursor || session.exited, input.wait_ms, hooks.signal);
    }
    return { ...this.readNew(owner, session, input.max_bytes), mode: 'new' };
  }

  async wait(owner: TerminalOwner, rawInput: WaitInput, hooks: ToolCallHooks = {}): Promise<WaitResult> {
    const input = parse(WaitInput, rawInput);
    const session = this.lookup(owner, input.id);
    let regex: RegExp | null = null;
    if (input.until === 'pattern') {
      if (input.pattern === undefined || input.pattern === '') {
        throw new TerminalToolError('invalid_input', 'until "pattern" needs a pattern: a JavaScript regular expression such as "Listening on port \\d+".');
      }
      try {
        regex = new RegExp(input.pattern, 'm');
      } catch (error) {
        throw new TerminalToolError(
          'invalid_input',
          `Invalid regular expression ${JSON.stringify(input.pattern)}: ${(error as Error).message}. Escape special characters such as ( [ . * + ? with a backslash.`,
        );
      }
    }
    const started = Date.now();
    // A command typed by terminal_run whose output-start mark is still on its way.
    if (input.until === 'exit' && (session.runPending || session.runQueued)) {
      await session.waitFor(() => !(session.runPending || session.runQueued) || session.exited, input.timeout_ms, hooks.signal);
    }
    const running = session.runningCommand;
    // A shell back at its prompt has nothing left to finish: report its last command instead of waiting for the shell to exit.
    const finished = !running && input.until === 'exit' && !session.exited ? session.lastFinished : null;
    if (finished) {
      await this.settlePrompt(session, started + input.timeout_ms, hooks.signal);
      const result = this.readNew(owner, session, input.max_bytes);
      return { ...result, exit_code: finished.exitCode, command_exit_code: finished.exitCode, reason: 'exit', scope: 'command', elapsed_ms: 0 };
    }
    const scope: WaitResult['scope'] = running ? 'command' : 'process';
    let reason: WaitResult['reason'] = 'timeout';
    let match: string | undefined;
    const stopProgress = this.streamProgress(session, hooks, () => session.cursorOf(owner.id));

    if (input.until === 'exit') {
      const ok = await session.waitFor(
        () => session.exited || (running !== null && running.outputEnd !== null),
        Math.max(0, started + input.timeout_ms - Date.now()),
        hooks.signal,
      );
      if (ok) reason = 'exit';
      if (ok && running) await this.settlePrompt(session, started + input.timeout_ms, hooks.signal);
    } else if (input.until === 'idle') {
      const quietSince = () => Math.max(session.lastDataAt, started);
      while (!hooks.signal?.aborted) {
        const remaining = started + input.timeout_ms - Date.now();
        const quietFor = Date.now() - quietSince();
        if (session.exited || quietFor >= input.idle_ms) {
          reason = session.exited ? 'exit' : 'idle';
          break;
        }
        if (remaining <= 0) break;
        const before = session.end;
        await session.waitFor(() => session.end > before || session.exited, Math.min(remaining, input.idle_ms - quietFor), hooks.signal);
      }
    } else if (regex) {
      // Scan new output incrementally; the last partial line is carried so a match across chunks is found.
      let scanned = session.cursorOf(owner.id);
      let carry = '';
      let tooSlow = false;
      const check = () => {
        const end = session.safeEnd;
        if (end > scanned) {
          const text = carry + session.render(scanned, end).text;
          scanned = end;
          let found: RegExpExecArray | null;
          try {
            found = execWithin(regex!, text, PATTERN_BUDGET_MS);
          } catch (error) {
            if (!(error instanceof RegexTimeoutError)) throw error;
            tooSlow = true;
            return true;
          }
          if (found) {
            match = found[0];
            return true;
          }
          carry = text.slice(Math.max(0, text.lastIndexOf('\n') + 1)).slice(-4096);
        }
        return false;
      };
      const ok = await session.waitFor(() => check() || session.exited, Math.max(0, started + input.timeout_ms - Date.now()), hooks.signal);
      if (tooSlow) {
        stopProgress();
        throw new TerminalToolError(
          'invalid_input',
          `The pattern ${JSON.stringify(input.pattern)} took more than ${PATTERN_BUDGET_MS} ms to match this terminal's output, so the wait was stopped: nested quantifiers such as (a+)+ backtrack exponentially. Use a simpler pattern, e.g. a literal piece of the line you expect.`,
        );
      }
      if (ok) reason = match !== undefined ? 'pattern' : 'exit';
    }
    stopProgress();

    const result = this.readNew(owner, session, input.max_bytes, scope === 'command' && running?.outputEnd != null ? running.outputEnd : undefined);
    return {
      ...result,
      exit_code: scope === 'command' && running?.outputEnd != null && !session.exited ? running.exitCode : result.exit_code,
      reason,
      scope,
      ...(match !== undefined ? { match } : {}),
      elapsed_ms: Date.now() - started,
    };
  }

  async close(owner: TerminalOwner, rawInput: CloseInput): Promise<CloseResult> {
    const input = parse(CloseInput, rawInput);
    const session = this.lookup(owner, input.id);
    if (!session.exited) {
      try {
        await this.service.kill(session.id, input.force ? 'SIGKILL' : undefined);
      } catch (error) {
        if (!(error instanceof PtyError && error.code === 'not_running')) throw error;
      }
    }
    const info = this.infoOf(session);
    const from = session.cursorOf(owner.id);
    const bounded = boundText(session.render(from, session.end).text, DEFAULT_MAX_BYTES);
    await this.service.remove(session.id);
    return { id: session.id, exit_code: info.exitCode, signal: info.signal, output: bounded.text, truncated: bounded.truncated };
  }

  list(owner: TerminalOwner): { terminals: ListedTerminal[] } {
    const terminals: ListedTerminal[] = [];
    for (const session of this.sessions.values()) {
      if (session.ownerId !== owner.id) continue;
      const info = this.service.get(session.id);
      if (!info) continue;
      terminals.push({
        id: session.id,
        title: info.title,
        command: [info.command, ...info.args].join(' '),
        cwd: session.cwd,
        status: info.status,
        state: session.state().state,
        exit_code: info.exitCode,
        unread_bytes: Math.max(0, session.safeEnd - session.cursorOf(owner.id)),
        created_at: info.createdAt,
      });
    }
    return { terminals };
  }

  async closeOwner(ownerId: string): Promise<void> {
    const owned = [...this.sessions.values()].filter((s) => s.ownerId === ownerId);
    await Promise.all(owned.map((s) => this.service.remove(s.id).catch(() => undefined)));
  }

  dispose(): void {
    for (const unsubscribe of this.unsubscribes.splice(0)) unsubscribe();
    for (const session of this.sessions.values()) session.dispose();
    this.sessions.clear();
    this.shellFiles?.dispose();
    this.shellFiles = null;
  }

  private spawn(owner: TerminalOwner, input: z.output<typeof CreateInput>): AgentSession {
    const live = [...this.sessions.values()].filter((s) => s.ownerId === owner.id && !s.exited).length;
    if (live >= this.maxLive) {
      throw new TerminalToolError(
        'limit',
        `Terminal limit reached: ${this.maxLive} running terminals per client. Close one with terminal_close (terminal_list shows them), or reuse one with terminal_run {id}.`,
      );
    }
    const cwd = input.cwd === undefined ? undefined : checkCwd(input.cwd);
    let command = input.command;
    let args = input.args;
    let withRcfile = false;
    if (command === undefined) {
      command = this.options.shell ?? defaultShell();
      if (basename(command) === 'bash') {
        this.shellFiles ??= writeShellIntegration();
        args = ['--rcfile', this.shellFiles.bashRcfile, '-i'];
        withRcfile = true;
      } else {
        args = ['-i'];
      }
    }
    let info: SessionInfo;
    try {
      info = this.service.create({
        command,
        args,
        cwd,
        env: { ...DEFAULT_ENV, ...this.options.env, ...input.env },
        cols: input.cols ?? this.options.cols ?? 120,
        rows: input.rows ?? this.options.rows ?? 32,
        title: input.title,
        source: 'agent',
        owner: owner.id,
        ownerName: owner.name,
      });
    } catch (error) {
      throw fromPtyError(error);
    }
    const session = new AgentSession(this.service, info.id, owner.id, integrationFor(command, withRcfile), info.cwd);
    this.sessions.set(info.id, session);
    return session;
  }

  private lookup(owner: TerminalOwner, id: string): AgentSession {
    const session = this.sessions.get(id);
    // Another owner's session gets the same answer as an unknown id: ids must not leak.
    if (!session || session.ownerId !== owner.id || !this.service.get(id)) throw noSuchTerminal(id);
    return session;
  }

  private infoOf(session: AgentSession): SessionInfo {
    const info = this.service.get(session.id);
    if (!info) throw noSuchTerminal(session.id);
    return info;
  }

  private statusOf(session: AgentSession, info: SessionInfo): StatusFields {
    const { state, prompt } = session.state();
    return {
      id: session.id,
      status: info.status,
      state,
      ...(prompt ? { prompt } : {}),
      exit_code: info.exitCode,
      signal: info.signal,
    };
  }

  /** Output since the caller's cursor (up to `stopAt` if given); moves the cursor to the end. */
  private readNew(owner: TerminalOwner, session: AgentSession, maxBytes: number | undefined, stopAt?: number): OutputResult {
    const from = session.cursorOf(owner.id);
    const end = session.safeEnd;
    const rendered = session.render(from, Math.min(end, stopAt ?? end));
    const bounded = boundText(rendered.text, maxBytes ?? DEFAULT_MAX_BYTES);
    const finished = session.finishedBetween(from, end);
    session.setCursor(owner.id, end);
    return {
      ...this.statusOf(session, this.infoOf(session)),
      output: bounded.text,
      truncated: bounded.truncated,
      cursor: session.cursorOf(owner.id),
      skipped: rendered.skipped,
      ...(finished ? { command_exit_code: finished.exitCode } : {}),
    };
  }

  /** After a command's done mark, the prompt follows within moments: wait for it so the state reads idle_at_prompt. */
  private async settlePrompt(session: AgentSession, deadline: number, signal?: AbortSignal): Promise<void> {
    if (session.integration === 'bash') {
      const window = Math.min(PROMPT_SETTLE_MS, Math.max(0, deadline - Date.now()));
      await session.waitFor(() => session.atPrompt || session.exited || session.runningCommand !== null, window, signal);
    } else if (session.integration === 'nonce') {
      // Without marks the prompt is recognised by its look; an unusual PS1 only costs this short window.
      const window = Math.min(NONCE_PROMPT_SETTLE_MS, Math.max(0, deadline - Date.now()));
      await session.waitFor(() => session.exited || looksLikeShellPrompt(session.tail()), window, signal);
    }
  }

  /** Sends complete new lines to hooks.onProgress as output arrives; returns a stop function. */
  private streamProgress(session: AgentSession, hooks: ToolCallHooks, startAt: () => number | null): () => void {
    const onProgress = hooks.onProgress;
    if (!onProgress) return () => undefined;
    let sent: number | null = null;
    return session.onChange(() => {
      const start = startAt();
      if (start === null) return;
      sent ??= start;
      const running = session.runningCommand;
      const end = Math.min(session.safeEnd, running?.outputEnd ?? Number.POSITIVE_INFINITY);
      if (end <= sent) return;
      const text = session.render(sent, end).text;
      const lastBreak = text.lastIndexOf('\n');
      if (lastBreak < 0) return;
      // Only whole lines: advance by the bytes of what was reported.
      const lines = text.slice(0, lastBreak + 1);
      sent = end - Buffer.byteLength(text.slice(lastBreak + 1), 'utf8');
      if (lines.trim() !== '') onProgress(lines);
    });
  }

  private capabilityOf(info: SessionInfo, env: Record<string, string> | undefined): TerminalCapabilityInfo {
    return ptySessionCapability({ cols: info.cols, rows: info.rows }, { ...DEFAULT_ENV, ...this.options.env, ...env });
  }

  private evictExited(ownerId: string): void {
    const exited = [...this.sessions.values()]
      .filter((s) => s.ownerId === ownerId && s.exited)
      .map((s) => ({ s, at: this.service.get(s.id)?.exitedAt ?? 0 }))
      .sort((a, b) => a.at - b.at);
    for (const { s } of exited.slice(0, Math.max(0, exited.length - this.maxExited))) {
      void this.service.remove(s.id).catch(() => undefined);
    }
  }
}

function parse<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const message = result.error.issues.map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message)).join('; ');
  throw new TerminalToolError('invalid_input', `Invalid arguments: ${message}`);
}

/** Resolves ~ and checks that the directory exists, with a message a model can act on. */
function checkCwd(raw: string): string {
  const cwd = raw === '~' ? homedir() : raw.startsWith('~/') ? join(homedir(), raw.slice(2)) : raw;
  if (!isAbsolute(cwd)) {
    throw new TerminalToolError('invalid_input', `cwd must be an absolute path (or start with ~/), got ${JSON.stringify(raw)}.`);
  }
  let isDir = false;
  try {
    isDir = statSync(cwd).isDirectory();
  } catch {
    throw new TerminalToolError('invalid_input', `cwd does not exist: ${cwd}. Create it first (e.g. terminal_run "mkdir -p ${cwd}") or pick an existing directory.`);
  }
  if (!isDir) throw new TerminalToolError('invalid_input', `cwd is not a directory: ${cwd}.`);
  return cwd;
}

function defaultShell(): string {
  const shell = process.env.SHELL;
  if (shell && basename(shell) === 'bash') return shell;
  for (const candidate of ['/bin/bash', '/usr/bin/bash', '/usr/local/bin/bash']) if (existsSync(candidate)) return candidate;
  return shell || '/bin/sh';
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

function exitedError(session: AgentSession, info: SessionInfo): TerminalToolError {
  const how = info.signal ? `signal ${info.signal}` : `exit code ${info.exitCode}`;
  return new TerminalToolError(
    'exited',
    `Terminal ${session.id} has exited (${how}). Read what it printed with terminal_read, close it with terminal_close, or start another with terminal_create.`,
  );
}

function fromPtyError(error: unknown): unknown {
  if (!(error instanceof PtyError)) return error;
  switch (error.code) {
    case 'session_limit':
      return new TerminalToolError('limit', `ptydeck cannot start another terminal: ${error.message}. Close one of yours with terminal_close.`);
    case 'spawn_failed':
      return new TerminalToolError('spawn_failed', `Could not start the program: ${error.message}. Check the command name and that it is installed.`);
    case 'invalid_argument':
      return new TerminalToolError('invalid_input', error.message);
    default:
      return new TerminalToolError('invalid_input', error.message);
  }
}
