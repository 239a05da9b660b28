// What a session is, as the core, the app and the CLI all describe it: its id, size, source, status and info,
// and its agent's.
import { z } from 'zod';
import { MAX_COLS, MAX_PANEL_INPUT_CHARS, MAX_READ_ONLY_WHY_CHARS, MAX_ROWS, MAX_SANDBOX_LIST_CHARS, MIN_COLS, MIN_ROWS, SESSION_ID_MAX, SESSION_ID_MIN } from './session-limits.js';

export { MAX_COLS, MAX_PANEL_INPUT_CHARS, MAX_READ_ONLY_WHY_CHARS, MAX_ROWS, MAX_SANDBOX_LIST_CHARS, MIN_COLS, MIN_ROWS, SESSION_ID_MAX, SESSION_ID_MIN };

/**
 * Who created a session. Structural: set by the code path that created it
 * (MCP tool vs. panel request), never inferred from a title or command.
 */
export const SessionSource = z.enum(['agent', 'user']);
export type SessionSource = z.infer<typeof SessionSource>;

/**
 * `lost`: a session an earlier host ran and did not end (it was killed,
 * crashed or was upgraded): its process is gone, its output is what that host
 * had written to the state directory, and it is read-only until removed.
 */
export const SessionStatus = z.enum(['running', 'exited', 'lost']);
export type SessionStatus = z.infer<typeof SessionStatus>;

/** Opaque session id, minted by the core. */
export const SessionId = z.string().min(SESSION_ID_MIN).max(SESSION_ID_MAX);
export type SessionId = z.infer<typeof SessionId>;

export const Cols = z.number().int().min(MIN_COLS).max(MAX_COLS);
export const Rows = z.number().int().min(MIN_ROWS).max(MAX_ROWS);

/**
 * What the program in a session asks of a person: set when its foreground
 * program is blocked waiting for the terminal's input (the kernel's word on
 * Linux; the prompt's look elsewhere), cleared when output moves on.
 */
export const InputPromptKind = z.enum(['confirm', 'password', 'pager', 'select', 'repl', 'press_key', 'unknown']);
export type InputPromptKind = z.infer<typeof InputPromptKind>;

export const Attention = z.object({
  kind: InputPromptKind,
  /** The prompt's line as a person sees it, e.g. "Continue? [y/N] ". */
  prompt: z.string().max(1000),
  /** Epoch milliseconds when the program started waiting. */
  since: z.number(),
});
export type Attention = z.infer<typeof Attention>;

/**
 * What a shell that reports its commands (an agent's bash, through its
 * shell-integration marks) is doing: sitting at its prompt or running a
 * command line, and how its newest finished command ended. Waiting for a
 * person's answer is `attention`; the shell process's own end is `status`.
 */
export const ShellActivity = z.object({
  state: z.enum(['idle', 'running']),
  /** Exit code of the newest finished command; null before any finished, or when the shell did not say. */
  lastExitCode: z.number().int().nullable(),
});
export type ShellActivity = z.infer<typeof ShellActivity>;

/** How a `lost` session was lost: when this host found it, and how much of its end may be missing. */
export const LostInfo = z.object({
  /** Epoch milliseconds when the host that restored it started. */
  foundAt: z.number(),
  /**
   * Bytes the old host had read but not yet written when it last wrote the
   * session's metadata: what is known to be missing at the end (more may be,
   * after that last write). Null when the old host left no figure.
   */
  unwrittenBytes: z.number().int().nonnegative().nullable(),
});
export type LostInfo = z.infer<typeof LostInfo>;

/** Longest command line the core reports for a process (it cuts longer ones with "…"). */
const MAX_PROCESS_COMMAND_CHARS = 400;

/** A TCP port a session's process listens on (LISTEN in the kernel's table), with the process holding it. */
export const ListeningPort = z.object({
  port: z.number().int().min(0).max(65535),
  /** The local address as people write it: 0.0.0.0, 127.0.0.1, ::, ::1, 192.168.1.5. */
  address: z.string().max(64),
  pid: z.number().int(),
  command: z.string().max(MAX_PROCESS_COMMAND_CHARS),
});
export type ListeningPort = z.infer<typeof ListeningPort>;

/** A process a session owns (its tree, its POSIX session, or its id in the environment). */
export const SessionProcess = z.object({
  pid: z.number().int(),
  command: z.string().max(MAX_PROCESS_COMMAND_CHARS),
  /** Epoch milliseconds. */
  startedAt: z.number(),
});
export type SessionProcess = z.infer<typeof SessionProcess>;

/**
 * How an agent's shell is fenced by the OS (bubblewrap on Linux). `off`: as
 * the developer. `workspace`: writes only in its working directory, a private
 * /tmp and package caches; secrets and ptydeck's own directories hidden;
 * network on. `workspace-offline`: the same with no network.
 */
export const SandboxProfile = z.enum(['off', 'workspace', 'workspace-offline']);
export type SandboxProfile = z.infer<typeof SandboxProfile>;

/** Paths of a sandbox list whose characters add up to MAX_SANDBOX_LIST_CHARS at most. */
const SandboxPathList = z.array(z.string()).refine((paths) => paths.reduce((sum, path) => sum + path.length, 0) <= MAX_SANDBOX_LIST_CHARS, {
  message: `paths longer than ${MAX_SANDBOX_LIST_CHARS} characters together`,
});

/** A session's sandbox as the panel, `ptydeck ls` and the agent see it. */
export const SandboxInfo = z.object({
  profile: SandboxProfile,
  /** Paths the session may write (empty with `off`: then it may write what the developer may). */
  writable: z.array(z.string()),
  /** Paths it cannot see (the first of them, as MAX_SANDBOX_LIST_CHARS allows). */
  hidden: SandboxPathList,
  /** How many more hidden paths the list leaves out. Absent when none. */
  hiddenOmitted: z.number().int().positive().optional(),
  /**
   * Paths it may read but not write, though they lie in a writable one or are
   * its working directory: what the developer's tools run unasked (a
   * repository's `.git/hooks` and `.git/config`, `.envrc`, `.vscode`...), and
   * a working directory fenced read-only (HOME, its dot-directories, the
   * system's). Absent from hosts before it was added. The first of them, as MAX_SANDBOX_LIST_CHARS allows.
   */
  readOnly: SandboxPathList.optional(),
  /** How many more read-only paths the list leaves out (the sandbox fences them all). Absent when none. */
  readOnlyOmitted: z.number().int().positive().optional(),
  /**
   * Why the working directory itself is read-only, when it is (it is or holds
   * a home directory, a link among the paths the sandbox fences...), so that
   * neither the agent nor the developer is left guessing at "Read-only file
   * system". Absent when it is writable, and from hosts before it was added.
   */
  readOnlyWhy: z.string().max(MAX_READ_ONLY_WHY_CHARS).optional(),
  network: z.boolean(),
  /**
   * Set when a sandbox was wanted by default but could not start here: why the
   * session runs unsandboxed (profile `off`). Absent or null otherwise.
   */
  unavailable: z.string().nullable().optional(),
});
export type SandboxInfo = z.infer<typeof SandboxInfo>;

export const SessionInfo = z.object({
  id: SessionId,
  source: SessionSource,
  /** Opaque identity of the creator (an MCP connection for agents), or null. */
  owner: z.string().nullable(),
  /** Human-readable name of the owner for badges, e.g. the MCP client name "claude-code". */
  ownerName: z.string().nullable(),
  title: z.string(),
  command: z.string(),
  args: z.array(z.string()),
  cwd: z.string(),
  pid: z.number().int(),
  cols: Cols,
  rows: Rows,
  status: SessionStatus,
  exitCode: z.number().int().nullable(),
  /** Signal name (e.g. "SIGHUP") when the process was ended by a signal. */
  signal: z.string().nullable(),
  /**
   * True once someone asked for the session to end (an agent's terminal_close,
   * the panel's close, shutdown): its SIGHUP is then a close, not a failure.
   * Absent from servers that predate it.
   */
  closeRequested: z.boolean().optional(),
  /** Epoch milliseconds. */
  createdAt: z.number(),
  exitedAt: z.number().nullable(),
  /**
   * A display-only terminal: output an agent ran itself and streams to
   * ptydeck (ACP's agent-owned terminals). No process of ours; input is refused.
   */
  readOnly: z.boolean().optional(),
  /** Set while the session's program waits for input from a person; absent or null otherwise. */
  attention: Attention.nullable().optional(),
  /**
   * Set for a shell whose commands the core follows (an agent's bash with
   * integration, once its first prompt is drawn); absent or null for every other
   * program, whose process running says nothing about a command.
   */
  shell: ShellActivity.nullable().optional(),
  /** Set, with status `lost`, for a session an earlier host ran; absent or null otherwise. */
  lost: LostInfo.nullable().optional(),
  /**
   * True for a session taken from the record an earlier host left in the state
   * directory (lost, or exited as it was): its info and output are what that file
   * said, and anything running as the developer could have written it, so none of
   * it proves who ran what. Absent for the sessions this host runs.
   */
  restored: z.boolean().optional(),
  /**
   * The TCP ports the session's processes listen on, kept while a panel is
   * connected (the core looks at most every 2 s); for an exited session, those
   * of the processes it left running. Absent where the system cannot say (no
   * /proc, e.g. macOS) and before the first look.
   */
  ports: z.array(ListeningPort).nullable().optional(),
  /** The agent session's sandbox; absent or null for sessions started without one in mind (the developer's tabs). */
  sandbox: SandboxInfo.nullable().optional(),
  /**
   * The remote (its name in remotes.json) whose host runs the session, set by
   * the host that relays it to its panels; absent for this machine's sessions.
   */
  host: z.string().max(64).optional(),
});
export type SessionInfo = z.infer<typeof SessionInfo>;

/** An agent connected over MCP, as shown in the panel's overview. */
export const AgentInfo = z.object({
  /** Per-connection id; equals the `owner` of the sessions this agent created. */
  id: z.string(),
  name: z.string(),
  version: z.string().nullable(),
  transport: z.enum(['http', 'stdio']),
  connectedAt: z.number(),
  /** The remote whose host the agent is connected to; absent for this machine's. */
  host: z.string().max(64).optional(),
});
export type AgentInfo = z.infer<typeof AgentInfo>;
