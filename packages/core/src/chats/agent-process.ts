// Starts an ACP agent process and opens its one session, and says why when it cannot or when it dies.
import { spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import type { InitializeResponse, McpServer, PromptResponse, SessionNotification } from '@agentclientprotocol/sdk';
import { Emitter, reportError, type OnEvent } from '@ptydeck/contract';
import { closedSpawn } from '../common/closed-exec.js';
import { resolveExecutable } from '../pty/command.js';
import { endPosixSession } from '../pty/session-termination.js';
import type { PtyService } from '../pty/types.js';
import { AcpClient, type AcpClientCallbacks, type AcpClientOptions } from './acp-client.js';
import type { AgentConfig } from './agents-config.js';
import { withParentDeathSignal } from './orphaned-agents.js';

export interface StartAgentOptions extends AcpClientCallbacks {
  service: PtyService;
  /** The ACP session's working directory (absolute). */
  cwd: string;
  /** Base environment for the agent process, before agents.json's env. Default process.env. */
  env?: Record<string, string | undefined>;
  /** Reported to the agent as the client version. */
  version?: string;
  terminals?: AcpClientOptions['terminals'];
  onError?: AcpClientOptions['onError'];
  /** MCP servers the agent should connect to for this session (ptydeck's own, bound to the chat). Default none. */
  mcpServers?: McpServer[];
  /**
   * Subscribed before the agent can send anything: an agent may send updates
   * in the same read as its session/new answer (Claude's adapter sends its
   * commands), before the returned AcpAgent could be subscribed to.
   */
  onSessionUpdate?: (notification: SessionNotification) => void;
  /**
   * Called with the agent's pid as soon as its process exists, before it can
   * send or start anything: whatever it starts counts as the chat's from then on.
   */
  onSpawned?: (pid: number) => void;
  /** Aborting ends the agent, also while it starts (an agent that never answers initialize). */
  signal?: AbortSignal;
  /** Time between SIGTERM and SIGKILL when ending the agent's processes. Default 3000 ms. */
  killGraceMs?: number;
}

/** How the agent process ended, with the end of what it wrote to stderr (its last words are usually why). */
export interface AgentExit {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** A running ACP agent with one session. */
export interface AcpAgent {
  readonly name: string;
  readonly pid: number;
  readonly sessionId: string;
  readonly initialize: InitializeResponse;
  readonly client: AcpClient;
  /** Every session/update the agent sends. */
  readonly onSessionUpdate: OnEvent<SessionNotification>;
  /** The agent process ended (asked to or not); its terminals are being released. */
  readonly onExit: OnEvent<AgentExit>;
  /** Resolves after the process ended and its terminals were released. */
  readonly closed: Promise<AgentExit>;
  prompt(text: string): Promise<PromptResponse>;
  /** Cancels the prompt turn: session/cancel to the agent, and pending questions answered as cancelled. */
  cancel(): Promise<void>;
  /** Ends the agent process (SIGTERM, then SIGKILL) and releases its terminals. */
  stop(): Promise<AgentExit>;
}

const STDERR_TAIL_CHARS = 8 * 1024;
/** How long an exit report waits for the rest of the agent's stderr. */
const STDERR_DRAIN_MS = 200;
/** How long a failed request waits for the agent's exit to explain it. */
const EXIT_AFTER_FAILURE_MS = 500;

/**
 * Starts an agent from agents.json and opens one ACP session with it:
 * `initialize` advertising file reads and writes and terminals, then
 * `session/new` in `cwd` with `mcpServers`. Rejects with a message naming
 * the agent when it cannot start, or dies or fails before the session exists.
 */
export async function startAcpAgent(config: AgentConfig, options: StartAgentOptions): Promise<AcpAgent> {
  const { service, requestPermission, approveWrite, wrote } = options;
  const env = { ...(options.env ?? process.env), ...config.env };
  // An agent that cannot be found is spawned as named, so its ENOENT says so; one that can dies with its host.
  const found = findExecutable(config.command, env.PATH, options.cwd);
  const start = found === undefined ? { command: config.command, args: config.args } : withParentDeathSignal(found, config.args);
  // Found, it starts holding no descriptor of the host's: no session's terminal master (closed-exec.ts).
  const run = found === undefined ? { command: start.command, args: start.args, env } : closedSpawn(start.command, start.args, env);
  const child = spawn(run.command, run.args, {
    cwd: options.cwd,
    env: run.env,
    stdio: ['pipe', 'pipe', 'pipe'],
    // Its own session, so stopping it reaches what it started (npx's node, an MCP server) too.
    detached: true,
  });
  const label = `agent '${config.name}' (${config.command})`;

  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_TAIL_CHARS);
  });
  // Writing to an agent that died is reported by the exit, not as an unhandled 'error'.
  child.stdin.on('error', () => undefined);

  const exits = new Emitter<AgentExit>({ name: 'agent exit' });
  const stderrDone = new Promise<void>((resolve) => child.stderr.once('close', resolve));
  const exited = new Promise<AgentExit>((resolve) => {
    child.once('exit', (exitCode, signal) => {
      // 'exit' can come before the last of stderr is read; a helper still holding the pipe must not delay the report long.
      let timer: NodeJS.Timeout | undefined;
      const drained = new Promise<void>((done) => (timer = setTimeout(done, STDERR_DRAIN_MS)));
      void Promise.race([stderrDone, drained]).then(() => {
        clearTimeout(timer);
        resolve({ exitCode, signal, stderr });
      });
    });
  });
  const spawned = new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (error) => reject(new Error(`cannot start ${label}: ${error.message}`)));
  });
  await spawned;
  // Later failures (a signal that cannot be sent) are not fatal to ptydeck.
  child.on('error', (error) => (options.onError ?? reportError)(error, `${label} failed`));
  // Set once 'spawn' has fired.
  const pid = child.pid ?? 0;
  options.onSpawned?.(pid);

  const client = new AcpClient(service, { requestPermission, approveWrite, ...(wrote ? { wrote } : {}) }, {
    agentName: config.name,
    terminals: options.terminals,
    onError: options.onError,
  });

  if (options.onSessionUpdate) client.onSessionUpdate(options.onSessionUpdate);

  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin) as WritableStream<Uint8Array>, Readable.toWeb(child.stdout) as ReadableStream<Uint8Array>);
  const connection = client.app.connect(stream);
  const graceMs = options.killGraceMs ?? 3000;
  const closed = exited.then(async (exit) => {
    exits.fire(exit);
    connection.close(new Error(`${label} exited`));
    const report = options.onError ?? reportError;
    await Promise.all([
      client.dispose().catch((error: unknown) => report(error, `releasing the terminals of ${label} failed`)),
      // Helpers the agent left behind have no one to talk to.
      endProcessSession(pid, graceMs).catch((error: unknown) => report(error, `ending the processes ${label} left failed`)),
    ]);
    exits.clear();
    return exit;
  });

  const stop = async (): Promise<AgentExit> => {
    if (child.exitCode === null && child.signalCode === null) await endProcessSession(pid, graceMs);
    return closed;
  };

  /**
   * The agent's answer, unless it dies first: then why it died. A request can
   * fail from the closed pipe a moment before 'exit' fires, so a failure waits
   * briefly for the exit, whose stderr says more than "connection closed".
   */
  const beforeExit = <T>(request: Promise<T>, what: string): Promise<T> => {
    const died = (exit: AgentExit) =>
      new Error(`${label} exited (${exit.signal ?? `code ${exit.exitCode}`}) during ${what}${exit.stderr.trim() ? `: ${lastWords(exit.stderr, 500)}` : ''}`);
    return Promise.race([
      request.catch(async (error: unknown) => {
        let timer: NodeJS.Timeout | undefined;
        const exit = await Promise.race([exited, new Promise<null>((resolve) => (timer = setTimeout(resolve, EXIT_AFTER_FAILURE_MS, null)))]);
        clearTimeout(timer);
        if (exit) throw died(exit);
        throw new Error(`${label} failed ${what}: ${describeFailure(error)}`);
      }),
      exited.then((exit) => {
        throw died(exit);
      }),
    ]);
  };

  const onAbort = () => void stop().catch((error: unknown) => (options.onError ?? reportError)(error, `stopping ${label} failed`));
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  void closed.finally(() => options.signal?.removeEventListener('abort', onAbort));

  let initialize: InitializeResponse;
  let sessionId: string;
  try {
    initialize = await beforeExit(
      connection.agent.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: {
          fs: { readTextFile: true, writeTextFile: true },
          terminal: true,
          // Agents written for Zed stream a terminal's output into tool calls only when the client says it can show it.
          _meta: { terminal_output: true },
        },
        clientInfo: { name: 'ptydeck', version: options.version ?? '0.1.0' },
      }),
      'initialize',
    );
    ({ sessionId } = await beforeExit(connection.agent.request(acp.methods.agent.session.new, { cwd: options.cwd, mcpServers: options.mcpServers ?? [] }), 'session/new'));
  } catch (error) {
    await stop();
    throw error;
  }
  client.addSession(sessionId, options.cwd);

  return {
    name: config.name,
    pid,
    sessionId,
    initialize,
    client,
    onSessionUpdate: client.onSessionUpdate,
    onExit: exits.on,
    closed,
    prompt: (text) => connection.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text }] }),
    async cancel() {
      client.cancel(sessionId);
      await connection.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    },
    stop,
  };
}

/** A stack trace's first line: a Rust panic's or anyhow's backtrace, a Go panic's goroutines. */
const TRACE_START = /^(stack backtrace:|goroutine \d+ \[)/i;
/** A frame of a stack trace (Node's `    at f (file:1:2)`, Rust's `   3: crate::f` and its `at file:1:2`), or Node's version line after it. */
const TRACE_FRAME = /^\s+(at\s|\d+:\s)|^Node\.js v\d/;

/**
 * The end of what an agent wrote to stderr, at most `maxChars`, without the
 * stack trace after its error: a dying Codex prints its reason and then a
 * backtrace longer than any tail we show, so the tail alone hid the reason.
 */
export function lastWords(stderr: string, maxChars: number): string {
  const lines = stderr.trimEnd().split('\n');
  const start = lines.findIndex((line) => TRACE_START.test(line));
  let end = start > 0 ? start : lines.length;
  while (end > 0 && (TRACE_FRAME.test(lines[end - 1]!) || lines[end - 1]!.trim() === '')) end--;
  const words = end > 0 ? lines.slice(0, end).join('\n') : stderr;
  return words.trim().slice(-maxChars);
}

const DETAIL_CHARS = 500;

/**
 * A failed request's message with what its JSON-RPC `data` adds: agents put
 * the reason there (Claude's adapter answers "Internal error" with
 * `data.details`), and the message alone tells the developer nothing.
 */
function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const data: unknown = (error as { data?: unknown }).data;
  const detail =
    typeof data === 'string' ? data : typeof data === 'object' && data !== null && typeof (data as { details?: unknown }).details === 'string' ? (data as { details: string }).details : '';
  const shown = detail.trim().slice(0, DETAIL_CHARS);
  return shown && !error.message.includes(shown) ? `${error.message} (${shown})` : error.message;
}

/** The agent and every helper it started: it runs in a POSIX session of its own, with no terminal, so SIGTERM asks. */
function endProcessSession(sid: number, graceMs: number): Promise<void> {
  return endPosixSession(sid, { signal: 'SIGTERM', graceMs });
}

/** Where `command` runs from (as spawn would find it on `searchPath`), or undefined when it cannot be run. */
function findExecutable(command: string, searchPath: string | undefined, cwd: string): string | undefined {
  try {
    return resolveExecutable(command, searchPath, cwd);
  } catch {
    return undefined;
  }
}
