// The PTY service's public types and errors.
import type { ErrorReporter, PtyEventOf, PtyEventType, SandboxInfo, SessionId, SessionInfo, SessionSource } from '@ptydeck/contract';

/**
 * A session as the PTY service knows it: what it spawned and how that went.
 * What others learn of it (prompts, shell state, ports) is not the service's:
 * facts/session-facts.ts keeps it and merges it into the panels' SessionInfo.
 */
export type PtySessionInfo = Omit<SessionInfo, 'attention' | 'shell' | 'ports'>;

/** A contract event, with the service's info where it carries one. */
type WithPtyInfo<E> = E extends { info: SessionInfo } ? Omit<E, 'info'> & { info: PtySessionInfo } : E;
import type { LostRecord } from './lost-record.js';
import type { SequenceHandlers } from '../vt/index.js';
import type { LabelReader } from './session-labels.js';

export interface PtyServiceOptions {
  /** Live (running) sessions allowed at once. Default 32. */
  maxLiveSessions?: number;
  /**
   * Of those, how many agents' sessions may never take: the developer can
   * always open a terminal, whatever agents hold. Default 8.
   */
  reservedUserSessions?: number;
  /** Bytes retained per session log. Default 4 MiB. */
  sessionLogBytes?: number;
  /** Bytes retained across all session logs; the oldest exited sessions are trimmed first, then the running session retaining the most. Default 64 MiB. */
  totalLogBytes?: number;
  /**
   * Exited sessions kept readable per owner (each agent connection is one, the
   * developer's own sessions another) before that owner's oldest is removed:
   * one owner's churn never evicts another's history. Default 32.
   */
  maxExitedSessions?: number;
  /** Exited sessions kept across all owners; past it the owner holding the most loses its oldest. Default 256. */
  maxExitedTotal?: number;
  /** Time between SIGHUP and SIGKILL when killing a process group. Default 3000 ms. */
  killGraceMs?: number;
  /**
   * Display sessions (output an agent ran itself and streams to ptydeck) open
   * at once. They hold no process, so they do not count against
   * maxLiveSessions, but each holds a log: this bounds how many one can open.
   * Default 32.
   */
  maxDisplaySessions?: number;
  /**
   * Flooding sessions read at once; past them a flood waits its turn (its
   * writer blocks), so a hundred floods cannot keep the loop from a
   * keystroke (see flood-turns.ts). 0: every session is always read.
   * Default 4.
   */
  floodReaders?: number;
  /**
   * Bytes of output without a 50 ms pause after which a session is read by
   * the read thread instead of the event loop, until it is quiet (see
   * read-thread.ts). 0: the event loop reads every session. Default 256 KiB.
   */
  threadReadAfter?: number;
  /**
   * A pause this long (ms) in a session's output, while the event loop was
   * free to see it, ends its run: it is no longer a flood (flood-turns.ts,
   * master-reading.ts). Default FLOOD.quietMs (50). A test on a loaded
   * machine raises it, where a writer waiting 50 ms for a CPU would count as quiet.
   */
  floodQuietMs?: number;
  /** Base environment for sessions, or a function giving it at each spawn. Default process.env. */
  env?: Record<string, string | undefined> | (() => Record<string, string | undefined>);
  /**
   * The id every session's environment carries as PTYDECK_HOST_ID (see
   * session-labels.ts): a host of a state directory passes hostIdOf(it).
   * Default: one of this service's own, so no other host lists what its
   * sessions leave running.
   */
  hostId?: string;
  /**
   * Called when an event listener throws, with a context naming the event
   * (`a 'pty.data' listener threw`). Listeners are isolated from each other and
   * from the service; the default, the contract's reportError, writes to stderr.
   */
  onListenerError?: ErrorReporter;
}

export interface CreateSessionInput {
  /** Program to run. Without it: the user's shell ($SHELL, else bash, else sh) as a login shell. */
  command?: string;
  args?: string[];
  cwd?: string;
  /** Added on top of the inherited environment. */
  env?: Record<string, string>;
  cols?: number;
  rows?: number;
  title?: string;
  source: SessionSource;
  /** Opaque identity of the creator, e.g. an MCP connection id. */
  owner?: string;
  /** Human-readable creator name for badges, e.g. the MCP client name. */
  ownerName?: string;
  /**
   * Confines the program (a sandbox): called with the environment the session
   * inherits (without the caller's own variables, which an agent chooses: the
   * fence is not theirs to move), the working directory, and the session's
   * dynamic loader variables (`loaderEnv`: the launcher starts without them,
   * and must hand them to the program) just before the spawn, it returns the
   * launcher to run the program under (`file args… program programArgs…`) and
   * what that fences, which the session reports. Its pid is the launcher's,
   * whose end is the session's. A throw fails the create: nothing is spawned.
   */
  confine?: (spawn: { env: Readonly<Record<string, string>>; cwd: string; loaderEnv: Readonly<Record<string, string>> }) => Confined;
  /**
   * Without `command`: the login shell's arguments, chosen by a layer above
   * once the shell is known (the one the session's own environment names),
   * e.g. bash's --init-file for the developer's tab. Undefined: a plain login
   * shell (`-l` and `args`).
   */
  shellArgs?: (shell: string) => string[] | undefined;
}

/** What confine() made of a session: the launcher, if any, and the sandbox it reports. */
export interface Confined {
  wrap?: { file: string; args: string[] };
  /** Variables the launcher starts without (a sandbox's credentials, sandbox/secret-env.ts). */
  unsetEnv?: readonly string[];
  sandbox: SandboxInfo;
}

/** A display session: no program runs, output comes from its creator. */
export interface CreateDisplayInput extends Pick<CreateSessionInput, 'cols' | 'rows' | 'title' | 'source' | 'owner' | 'ownerName'> {
  /** What the agent says it ran, shown as the tab's command. */
  command?: string;
  /** Where the agent says it ran it; must be an absolute existing directory when given. */
  cwd?: string;
}

/**
 * The creator's handle on a display session: the only way to give it output
 * or end it. Both are ignored once the session has exited.
 */
export interface DisplaySession {
  readonly id: SessionId;
  /** Appends output, as a program's would be: viewers stream it, the log keeps it. */
  append(data: string | Uint8Array): void;
  /** Marks it exited, with the exit code or signal the agent reported. */
  exit(exitCode: number | null, signal: string | null): void;
  /**
   * Names the command it shows, when the agent says so after opening it
   * (Claude's adapter announces a terminal before the command is known);
   * emits `pty.updated`. Ignored once it was removed.
   */
  describe(command: string, title: string): void;
}

export interface ReadOptions {
  /** Absolute byte cursor to read from. Default: the oldest retained byte. */
  cursor?: number;
  /** Most bytes to return. Default: everything available. */
  maxBytes?: number;
  /**
   * Copy into this array instead of a new one: at most its length, from its
   * start (`data` is then a view of it). For a reader that reuses its buffers,
   * such as a panel connection's frames: a flood read into new arrays was a
   * new buffer per frame for V8 to count and collect.
   */
  into?: Uint8Array;
}

export interface ReadResult {
  /** Output bytes starting at `cursor`. */
  data: Uint8Array;
  /** Absolute cursor of data[0]: the requested cursor, or the oldest retained byte if that was later. */
  cursor: number;
  /** Cursor to pass to the next read. */
  next: number;
  /** Bytes dropped between the requested cursor and `cursor` (trimmed by the caps). */
  skipped: number;
  /** Absolute cursor one past the newest byte written so far. */
  end: number;
  status: SessionInfo['status'];
  exitCode: number | null;
  signal: string | null;
}

/** Output as it enters a session's log, in order, before `pty.exited` for that session. */
export interface PtyDataEvent {
  type: 'pty.data';
  id: SessionId;
  /** Absolute cursor of data[0]. */
  cursor: number;
  /**
   * The chunk as it was read (the log keeps a copy): read it, never mutate
   * it, and copy what you keep. It is lent for the listener's call only: a
   * flood's chunks go back to the read thread to be filled again once the
   * listeners return.
   */
  data: Uint8Array;
}

/**
 * Input written to a session, after it was queued for the terminal. Who wrote
 * it is what the writer said (PtyService.write): the agent tool says 'agent',
 * the panel's connections (the developer's keys, `ptydeck attach`) 'user'.
 */
export interface PtyInputEvent {
  type: 'pty.input';
  id: SessionId;
  from: SessionSource;
  /** What was written, lent for the listener's call only. */
  data: string | Uint8Array;
}

export type PtyServiceEventMap = { [K in PtyEventType]: WithPtyInfo<PtyEventOf<K>> } & { 'pty.data': PtyDataEvent; 'pty.input': PtyInputEvent };
export type PtyServiceEventType = keyof PtyServiceEventMap;

export interface PtyService {
  /**
   * The labels the service writes into every session's environment beside
   * PTYDECK_SESSION_ID (its host's id, the session's key), and which session
   * a process carrying some comes from: what a process table scan trusts of
   * a label (pty/session-processes.ts).
   */
  readonly labels: LabelReader;
  create(input: CreateSessionInput): PtySessionInfo;
  /**
   * Opens a display-only session (SessionInfo.readOnly): no process, pid 0,
   * output appended through the returned handle; write() refuses it with
   * 'read_only', kill() and remove() end it like any session.
   */
  createDisplay(input: CreateDisplayInput): { info: PtySessionInfo; session: DisplaySession };
  /**
   * Brings back a session an earlier host kept (issue 24), under its id,
   * source, owner and ownerName, with its output at the cursors it had: one
   * that was running comes back `lost` (SessionInfo.lost says how much of its
   * end is known missing), one that had exited comes back exited. No process
   * runs behind it (pid 0): write() and resize() refuse it with 'not_running'
   * saying the process is gone, kill() does nothing, remove() forgets it. It
   * counts as an exited session for the caps, and emits `pty.created`.
   */
  restore(record: LostRecord): PtySessionInfo;
  /**
   * Throws 'read_only' for a display session. `from` says who typed it (the
   * developer unless the agent tool says otherwise), for `pty.input`.
   */
  write(id: SessionId, data: string | Uint8Array, from?: SessionSource): void;
  resize(id: SessionId, cols: number, rows: number): void;
  /**
   * Signals the session's whole process group. Without a signal: SIGHUP, then
   * SIGKILL after the grace period. Resolves once the session has exited.
   */
  kill(id: SessionId, signal?: NodeJS.Signals): Promise<void>;
  /** Forgets a session (killing it first if it runs) and emits `pty.removed`. */
  remove(id: SessionId): Promise<void>;
  get(id: SessionId): PtySessionInfo | undefined;
  list(): PtySessionInfo[];
  read(id: SessionId, options?: ReadOptions): ReadResult;
  /**
   * Hands `handlers` the escape sequences of the session's one scan of its output, which every chunk
   * passes through once as it enters the log, before 'pty.data' (rather than scanning the chunks
   * again). The scanner stays the service's. Returns the function that removes the handlers.
   */
  onSequences(id: SessionId, handlers: SequenceHandlers): () => void;
  /** Where that scan stands now (ScanPosition). */
  scanPosition(id: SessionId): ScanPosition;
  on<K extends PtyServiceEventType>(event: K, listener: (event: PtyServiceEventMap[K]) => void): () => void;
  /** Ends every session; resolves after every child is reaped. */
  dispose(): Promise<void>;
}

/** Where a session's scan of its output stands (PtyService.scanPosition). */
export interface ScanPosition {
  /** One past the last byte scanned. */
  end: number;
  /** The latest cursor at which no escape sequence or UTF-8 character is open: readers stop here so the bytes of one stay together. */
  safeEnd: number;
}

/** Every failure the service reports is a PtyError with a code naming the problem. */
export type PtyErrorCode =
  | 'no_such_session'
  | 'session_limit'
  | 'invalid_argument'
  | 'spawn_failed'
  | 'not_running'
  | 'input_backlog'
  | 'read_only'
  | 'disposed';

export class PtyError extends Error {
  override readonly name = 'PtyError';
  constructor(
    readonly code: PtyErrorCode,
    message: string,
  ) {
    super(message);
  }
}
