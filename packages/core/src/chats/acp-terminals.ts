// ACP's terminal/* methods for one agent, each terminal a PTY session the developer sees live in the panel.
import { WaitFirst } from '../common/wait-first.js';
import { Listings, SandboxUnavailableError, confineSession, type SandboxSettings, type SessionSpawn } from '../sandbox/index.js';
import path from 'node:path';
import { RequestError } from '@agentclientprotocol/sdk';
import type {
  CreateTerminalRequest,
  CreateTerminalResponse,
  KillTerminalRequest,
  ReleaseTerminalRequest,
  TerminalExitStatus,
  TerminalOutputRequest,
  TerminalOutputResponse,
  WaitForTerminalExitRequest,
  WaitForTerminalExitResponse,
} from '@agentclientprotocol/sdk';
import { reportError, type SessionId, type Unsubscribe } from '@ptydeck/contract';
import { OutputLog } from '../pty/output-log.js';
import { PtyError, type PtyService } from '../pty/types.js';
import { spawnTurnsOf } from '../pty/spawn-turns.js';

export interface AcpTerminalsOptions {
  /** Running terminals one ACP session may hold. Default 16. */
  maxLive?: number;
  /** Terminals one ACP session has created and not released, running or not. Default 64. */
  maxUnreleased?: number;
  /** Output kept per terminal when the agent names no outputByteLimit. Default 4 MiB. */
  defaultOutputBytes?: number;
  /** The most output kept per terminal, whatever outputByteLimit asks for. Default 8 MiB. */
  maxOutputBytes?: number;
  /** Owner id of every terminal's PTY session (a chat's); default the ACP session id. */
  owner?: string;
  /** Shown on the PTY session's badge, e.g. the agent's name from agents.json. */
  ownerName?: string;
  /** Working directory for a terminal the agent gives none: the ACP session's cwd. */
  cwdOf?: (sessionId: string) => string | undefined;
  /** How the chat's agent's shells are fenced: its profile by its name, as for the terminal tool. Without it, none is. */
  sandbox?: SandboxSettings;
}

const DEFAULTS = {
  maxLive: 16,
  maxUnreleased: 64,
  defaultOutputBytes: 4 * 1024 * 1024,
  maxOutputBytes: 8 * 1024 * 1024,
};

/**
 * ACP defines no code for "too many"; -32603 is what agents treat as a failed
 * tool call, and the message names the limit and what frees room.
 */
export const TERMINAL_LIMIT_CODE = -32603;
const TITLE_CHARS = 200;
/** ACP's "Resource not found". */
const NOT_FOUND_CODE = -32002;

class AcpTerminal {
  readonly log = new OutputLog();
  truncated = false;
  exitStatus: TerminalExitStatus | null = null;
  released = false;
  readonly exited: Promise<void>;
  private markExited!: () => void;

  constructor(
    /** The PTY session's id, which is also the ACP terminal id. */
    readonly id: SessionId,
    readonly sessionId: string,
    readonly outputLimit: number,
  ) {
    this.exited = new Promise((resolve) => {
      this.markExited = resolve;
    });
  }

  get running(): boolean {
    return this.exitStatus === null;
  }

  append(chunk: Uint8Array): void {
    // The log copies it (output events lend their chunk for the call only).
    this.log.append(chunk);
    // Trimming rounds up to a character boundary, so the text never starts mid-character.
    if (this.log.trimTo(this.outputLimit) > 0) this.truncated = true;
  }

  finish(exitCode: number | null, signal: string | null): void {
    if (this.exitStatus) return;
    this.exitStatus = { exitCode, signal };
    this.markExited();
  }

  /** The retained output as text. While the command runs, a character still arriving is left for the next read. */
  text(): string {
    return new TextDecoder('utf-8').decode(this.log.readFrom().data, { stream: this.running });
  }
}

/**
 * The client side of ACP's `terminal/*` methods for one agent connection,
 * each terminal a PTY session in the core's service (source 'agent', owner the
 * ACP session id), so the developer sees it live in the panel. Each terminal
 * keeps its own bounded output, because an agent may ask for more than the
 * service's per-session log holds. Once released, a terminal's output goes
 * with it: the chat's cards show the PTY session itself (its tab), not this
 * copy.
 *
 * A terminal is reachable only through the ACP session that created it:
 * another session's id gets the same answer as an unknown one.
 */
export class AcpTerminals {
  private readonly config: typeof DEFAULTS;
  /** Unreleased terminals by id. */
  private readonly terminals = new Map<SessionId, AcpTerminal>();
  /** Terminals whose PTY session still runs, released or not: their output and exit still arrive. */
  private readonly following = new Map<SessionId, AcpTerminal>();
  private readonly subscriptions: Unsubscribe[];

  constructor(
    private readonly service: PtyService,
    private readonly options: AcpTerminalsOptions = {},
  ) {
    this.config = { ...DEFAULTS };
    for (const key of Object.keys(DEFAULTS) as (keyof typeof DEFAULTS)[]) {
      const value = options[key];
      if (value === undefined) continue;
      if (!Number.isInteger(value) || value < 1) throw new RangeError(`option ${key} must be a positive integer`);
      this.config[key] = value;
    }
    this.subscriptions = [
      service.on('pty.data', (event) => this.following.get(event.id)?.append(event.data)),
      service.on('pty.exited', (event) => {
        this.following.get(event.id)?.finish(event.exitCode, event.signal);
        this.following.delete(event.id);
      }),
    ];
  }

  /**
   * `terminal/create`. A command with no args and a space in it (`bash -c
   * 'echo hi'`) is a command line, as agents written for editors send it: it
   * runs through /bin/sh -c. Otherwise command and args run as given.
   */
  create(params: CreateTerminalRequest): Promise<CreateTerminalResponse> {
    // Checks and spawn in one turn of the spawn queue: two queued creations never both pass a limit.
    // What the sandbox's policy lists is listed off the loop, between tries of the create (listings.ts).
    const listings = new Listings();
    return spawnTurnsOf(this.service).run(() => this.createNow(params, listings));
  }

  private createNow(params: CreateTerminalRequest, listings: Listings): CreateTerminalResponse {
    const { sessionId } = params;
    const own = [...this.terminals.values()].filter((t) => t.sessionId === sessionId);
    if (own.length >= this.config.maxUnreleased) {
      throw new RequestError(
        TERMINAL_LIMIT_CODE,
        `Terminal limit reached: ${this.config.maxUnreleased} unreleased terminals per session. Release finished terminals with terminal/release.`,
      );
    }
    if (own.filter((t) => t.running).length >= this.config.maxLive) {
      throw new RequestError(
        TERMINAL_LIMIT_CODE,
        `Terminal limit reached: ${this.config.maxLive} running terminals per session. Wait for one to exit, or end one with terminal/kill or terminal/release.`,
      );
    }
    const cwd = params.cwd ?? this.options.cwdOf?.(sessionId);
    if (cwd !== undefined && !path.isAbsolute(cwd)) throw RequestError.invalidParams({ cwd }, `cwd must be an absolute path, got '${cwd}'`);
    const limit = params.outputByteLimit ?? this.config.defaultOutputBytes;
    if (!Number.isInteger(limit) || limit < 0) throw RequestError.invalidParams({ outputByteLimit: limit }, 'outputByteLimit must be a non-negative integer');
    const env: Record<string, string> = {};
    for (const variable of params.env ?? []) env[variable.name] = variable.value;
    const args = params.args ?? [];
    const commandLine = args.length === 0 && /\s/.test(params.command.trim());
    const sandbox = this.options.sandbox;
    const owner = this.options.ownerName ? { name: this.options.ownerName } : {};
    const confine = sandbox && ((spawn: SessionSpawn) => confineSession(sandbox, owner, undefined, spawn, [], listings));
    let info;
    try {
      info = this.service.create({
        ...(confine ? { confine } : {}),
        source: 'agent',
        owner: this.options.owner ?? sessionId,
        ownerName: this.options.ownerName,
        command: commandLine ? '/bin/sh' : params.command,
        args: commandLine ? ['-c', params.command] : args,
        title: titleOf(params.command, args),
        env,
        cwd,
      });
    } catch (error) {
      if (error instanceof WaitFirst) throw error;
      throw toRequestError(error, params.command);
    }
    // Data and exit arrive from the PTY on later ticks, so registering now misses none.
    const terminal = new AcpTerminal(info.id, sessionId, Math.min(limit, this.config.maxOutputBytes));
    this.terminals.set(terminal.id, terminal);
    this.following.set(terminal.id, terminal);
    return { terminalId: terminal.id };
  }

  /** `terminal/output`: the retained output, whether it was truncated, and the exit status once exited. */
  output(params: TerminalOutputRequest): TerminalOutputResponse {
    const terminal = this.require(params);
    return { output: terminal.text(), truncated: terminal.truncated, exitStatus: terminal.exitStatus };
  }

  /** `terminal/wait_for_exit`: resolves with the exit status; rejects as cancelled when `signal` aborts first. */
  async waitForExit(params: WaitForTerminalExitRequest, signal?: AbortSignal): Promise<WaitForTerminalExitResponse> {
    const terminal = this.require(params);
    if (terminal.running) {
      let onAbort: (() => void) | undefined;
      const aborted = new Promise<never>((_, reject) => {
        onAbort = () => reject(RequestError.requestCancelled(undefined, `stopped waiting for terminal '${terminal.id}'`));
        if (signal?.aborted) onAbort();
        else signal?.addEventListener('abort', onAbort, { once: true });
      });
      try {
        await Promise.race([terminal.exited, aborted]);
      } finally {
        if (onAbort) signal?.removeEventListener('abort', onAbort);
      }
    }
    return { ...terminal.exitStatus };
  }

  /** `terminal/kill`: ends the command (SIGHUP, then SIGKILL); the terminal stays, its output readable. */
  async kill(params: KillTerminalRequest): Promise<void> {
    const terminal = this.require(params);
    if (terminal.running) await this.end(terminal);
  }

  /**
   * `terminal/release`: the id is invalid from now on and its output is
   * dropped; a running command is ended.
   */
  async release(params: ReleaseTerminalRequest): Promise<void> {
    await this.releaseTerminal(this.require(params));
  }

  /** Releases every terminal of the connection, e.g. because the agent process died. */
  async releaseAll(): Promise<void> {
    await Promise.all([...this.terminals.values()].map((terminal) => this.releaseTerminal(terminal)));
  }

  /** Stops following the service. Terminals still running are left to the service (its dispose ends them). */
  dispose(): void {
    for (const unsubscribe of this.subscriptions) unsubscribe();
    this.following.clear();
  }

  private async releaseTerminal(terminal: AcpTerminal): Promise<void> {
    if (terminal.released) return;
    terminal.released = true;
    this.terminals.delete(terminal.id);
    if (terminal.running) await this.end(terminal);
  }

  private async end(terminal: AcpTerminal): Promise<void> {
    try {
      await this.service.kill(terminal.id);
    } catch (error) {
      // Already gone from the service (evicted): nothing left to end.
      if (!(error instanceof PtyError && error.code === 'no_such_session')) throw toRequestError(error, terminal.id);
    }
  }

  private require(params: { sessionId: string; terminalId: string }): AcpTerminal {
    const terminal = this.terminals.get(params.terminalId);
    if (!terminal || terminal.sessionId !== params.sessionId) {
      throw new RequestError(
        NOT_FOUND_CODE,
        `Terminal not found: no terminal '${params.terminalId}' in session '${params.sessionId}' (never created there, or already released)`,
        { terminalId: params.terminalId },
      );
    }
    return terminal;
  }
}

/** The tab's title: the command as the agent wrote it, cut short (a long script would exceed the service's 4096-character limit). */
function titleOf(command: string, args: string[]): string {
  const full = [command, ...args].join(' ').replace(/\s+/g, ' ');
  return full.length > TITLE_CHARS ? `${full.slice(0, TITLE_CHARS - 1)}…` : full;
}

/** The service's errors as JSON-RPC errors an agent can act on. */
function toRequestError(error: unknown, what: string): RequestError {
  if (error instanceof RequestError) return error;
  // The chat's agent's sandbox, set by the developer, cannot start: the agent is told why and that nothing ran.
  if (error instanceof SandboxUnavailableError) return new RequestError(TERMINAL_LIMIT_CODE, error.message);
  if (error instanceof PtyError) {
    if (error.code === 'session_limit') return new RequestError(TERMINAL_LIMIT_CODE, `Terminal limit reached: ${error.message}`);
    if (error.code === 'invalid_argument' || error.code === 'spawn_failed') return RequestError.invalidParams(undefined, error.message);
    return RequestError.internalError(undefined, error.message);
  }
  reportError(error, `an ACP terminal operation on '${what}' failed`);
  return RequestError.internalError(undefined, error instanceof Error ? error.message : String(error));
}
