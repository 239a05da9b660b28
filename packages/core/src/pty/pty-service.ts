// The PTY service: creates, reads, writes and ends every session, and emits their lifecycle events.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { reportError, type SessionId, type SessionSource } from '@ptydeck/contract';
import type { LostRecord } from './lost-record.js';
import { loginShellArgs, resolveExecutable, resolveShell } from './command.js';
import { buildSessionEnv, definedEnv, splitLoaderEnv } from './environment.js';
import { EventHub } from './event-hub.js';
import { FLOOD } from './flood.js';
import { FloodTurns } from './flood-turns.js';
import { LoopWatch } from './loop-watch.js';
import { adoptable, LogBuffers } from './log-buffers.js';
import { LogRetention } from './log-retention.js';
import { isSignalName, signalPosixSession } from './process-tree.js';
import { MAX_INPUT_BACKLOG_BYTES, spawnPtyProcess, type PtyExit } from './pty-process.js';
import { SLAB_BYTES } from './output-log.js';
import { PtySession } from './pty-session.js';
import { restoredInfo, restoredRefusal } from './restored-session.js';
import { serviceConfig, type ServiceConfig } from './service-config.js';
import { SessionLabels } from './session-labels.js';
import { SessionQuota } from './session-quota.js';
import { endSessionProcesses, waitFor } from './session-termination.js';
import { SharedReadThread } from './shared-read-thread.js';
import {
  PtyError,
  type CreateDisplayInput,
  type CreateSessionInput,
  type DisplaySession,
  type PtyService,
  type PtyServiceEventMap,
  type PtyServiceOptions,
  type PtySessionInfo,
  type ReadOptions,
  type ReadResult,
  type ScanPosition,
} from './types.js';
import { checkSize, checkWriteData, parseCreateInput, parseReadOptions } from './validate.js';
import type { SequenceHandlers } from '../vt/index.js';

/** Slabs kept for the next append once trimmed (1 MiB): more come back only when a session's log is dropped whole. */
const SPARE_SLABS = 64;
const DEFAULT_COLS = 80;
const DEFAULT_ROWS = 24;

export function createPtyService(options: PtyServiceOptions = {}): PtyService {
  return new PtyServiceImpl(options);
}

class PtyServiceImpl implements PtyService {
  private readonly config: ServiceConfig;
  private readonly baseEnv: () => Record<string, string | undefined>;
  private readonly events: EventHub<PtyServiceEventMap>;
  /** Insertion order is creation order. */
  private readonly sessions = new Map<SessionId, PtySession>();
  private readonly quota: SessionQuota;
  private readonly retention: LogRetention;
  private disposed = false;
  private readonly floods: FloodTurns;
  private readonly readThread: SharedReadThread;
  /**
   * The logs' slabs: one trimmed from any log is filled again by the next append to any (OutputLog); a read
   * thread batch a log kept goes back to the thread.
   */
  private readonly slabs: LogBuffers;
  private readonly loop: LoopWatch;
  readonly labels: SessionLabels;

  constructor(options: PtyServiceOptions) {
    this.config = serviceConfig(options);
    this.labels = new SessionLabels(options.hostId);
    const env = options.env ?? process.env;
    this.baseEnv = typeof env === 'function' ? env : () => env;
    this.events = new EventHub(options.onListenerError);
    // One watch of the loop for both measures of a flood's run: the turns' and the read thread's.
    this.loop = new LoopWatch(FLOOD.quietMs / 2);
    this.floods = new FloodTurns({ readers: this.config.floodReaders, quietMs: this.config.floodQuietMs, loop: this.loop });
    this.readThread = new SharedReadThread(this.config.threadReadAfter, () => this.disposed, this.loop, this.config.floodQuietMs);
    this.slabs = new LogBuffers(SLAB_BYTES, SPARE_SLABS, this.readThread.reuse);
    this.quota = new SessionQuota(this.config);
    this.retention = new LogRetention(this.config, this.sessions, (session) => this.evict(session));
  }

  create(rawInput: CreateSessionInput): PtySessionInfo {
    if (this.disposed) throw new PtyError('disposed', 'the PTY service has been disposed');
    const input = parseCreateInput(rawInput);
    this.quota.checkSpawn(input.source);
    const id = randomUUID();
    const cwd = path.resolve(input.cwd ?? process.cwd());
    const inherited = this.baseEnv();
    const env = buildSessionEnv(inherited, input.env, this.labels.issue(id));
    let file: string;
    let args: string[];
    if (input.command !== undefined) {
      file = resolveExecutable(input.command, env.PATH, cwd);
      args = input.args ?? [];
    } else {
      file = resolveShell(env, cwd);
      args = input.shellArgs?.(file) ?? loginShellArgs(input.args ?? []);
    }
    // Before anything is made: a confinement that cannot be had fails the create. Built from the environment the
    // session inherits, not from the caller's variables: an agent's terminal_create names those, and its HOME, PATH or
    // XDG_RUNTIME_DIR would otherwise move the hidden paths, or pick the bwrap the host runs (agent-fence.test.ts).
    const { launcher: launcherEnv, loader: loaderEnv } = splitLoaderEnv(env);
    let confined;
    try {
      confined = input.confine?.({ env: definedEnv(inherited), cwd, loaderEnv });
    } catch (error) {
      // No session: its key is not kept (a create tried again after its sandbox's listings, listings.ts, issues another).
      this.labels.forget(id);
      throw error;
    }
    const cols = input.cols ?? DEFAULT_COLS;
    const rows = input.rows ?? DEFAULT_ROWS;
    const session = new PtySession(
      {
        id,
        source: input.source,
        owner: input.owner ?? null,
        ownerName: input.ownerName ?? null,
        title: input.title ?? path.basename(input.command ?? file),
        command: input.command ?? file,
        args,
        cwd,
        pid: 0,
        cols,
        rows,
        status: 'running',
        exitCode: null,
        signal: null,
        createdAt: Date.now(),
        exitedAt: null,
        ...(confined ? { sandbox: confined.sandbox } : {}),
      },
      { slabs: this.slabs },
    );
    try {
      // A launcher starts without the loader's variables (confine handed them to the program: splitLoaderEnv).
      // Without the credentials the sandbox takes away, which would otherwise be in the launcher's /proc/<pid>/environ.
      const launched = confined?.wrap ? { file: confined.wrap.file, args: [...confined.wrap.args, file, ...args], env: withoutNames(launcherEnv, confined.unsetEnv) } : { file, args, env };
      session.process = spawnPtyProcess(
        { file: launched.file, args: launched.args, cwd, env: launched.env, cols, rows, threadReading: this.readThread },
        (chunk, reusable) => this.onData(session, chunk, reusable),
        (exit) => this.onExit(session, exit),
      );
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new PtyError('spawn_failed', `cannot start '${input.command ?? file}': ${reason}`);
    }
    session.info.pid = session.process.pid;
    session.floodTurn = this.floods.join(session.process);
    this.sessions.set(id, session);
    this.quota.spawned(session.info.source);
    this.events.emit('pty.created', { type: 'pty.created', info: session.snapshot() });
    return session.snapshot();
  }

  createDisplay(rawInput: CreateDisplayInput): { info: PtySessionInfo; session: DisplaySession } {
    if (this.disposed) throw new PtyError('disposed', 'the PTY service has been disposed');
    const input = parseCreateInput({ ...rawInput });
    this.quota.checkDisplay();
    const command = input.command ?? '';
    const session = new PtySession({
      id: randomUUID(),
      source: input.source,
      owner: input.owner ?? null,
      ownerName: input.ownerName ?? null,
      title: input.title ?? (command || 'output'),
      command,
      args: [],
      cwd: path.resolve(input.cwd ?? process.cwd()),
      // No process of ours: nothing to signal, and pid 0 names none.
      pid: 0,
      cols: input.cols ?? DEFAULT_COLS,
      rows: input.rows ?? DEFAULT_ROWS,
      status: 'running',
      exitCode: null,
      signal: null,
      createdAt: Date.now(),
      exitedAt: null,
      readOnly: true,
    });
    this.sessions.set(session.id, session);
    this.quota.displayOpened();
    this.events.emit('pty.created', { type: 'pty.created', info: session.snapshot() });
    const handle: DisplaySession = {
      id: session.id,
      append: (data) => {
        if (!session.running || !this.sessions.has(session.id)) return;
        checkWriteData(data);
        const chunk = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data);
        if (chunk.length > 0) this.onData(session, chunk);
      },
      exit: (exitCode, signal) => this.endDisplay(session, exitCode, signal),
      describe: (command, title) => {
        if (!this.sessions.has(session.id) || (session.info.command === command && session.info.title === title)) return;
        const checked = parseCreateInput({ source: session.info.source, command, title });
        session.info.command = checked.command ?? '';
        session.info.title = checked.title ?? session.info.title;
        this.events.emit('pty.updated', { type: 'pty.updated', info: session.snapshot() });
      },
    };
    return { info: session.snapshot(), session: handle };
  }

  restore(record: LostRecord): PtySessionInfo {
    if (this.disposed) throw new PtyError('disposed', 'the PTY service has been disposed');
    const info = restoredInfo(record, Date.now());
    if (this.sessions.has(info.id)) throw new PtyError('invalid_argument', `cannot restore session '${info.id}': a session with that id exists`);
    const session = new PtySession(info, { slabs: this.slabs, restoredLogStart: record.start });
    this.sessions.set(session.id, session);
    // Its log counts against the byte caps like an exited session's; the session is never evicted for another record (LogRetention).
    this.retention.restored(session);
    if (record.output.length > 0) {
      session.log.append(record.output);
      this.retention.appended(session, record.output.length);
    }
    // An earlier host scanned that output: an empty scan moves the scanner past it, as over a gap.
    session.sequences.scan(session.log.end, new Uint8Array(0));
    this.events.emit('pty.created', { type: 'pty.created', info: session.snapshot() });
    return session.snapshot();
  }

  write(id: SessionId, data: string | Uint8Array, from: SessionSource = 'user'): void {
    checkWriteData(data);
    const held = this.sessions.get(id);
    if (held?.restored) throw restoredRefusal(held.info, 'write to');
    if (held?.info.readOnly) {
      throw new PtyError('read_only', `session '${id}' is display-only: it shows output an agent ran itself, and takes no input`);
    }
    const session = this.runningSession(id, 'write to');
    session.floodTurn?.input();
    if (!session.process!.write(data)) {
      throw new PtyError(
        'input_backlog',
        `session '${id}' is not reading its input: ${MAX_INPUT_BACKLOG_BYTES / (1024 * 1024)} MiB already wait to be written; nothing of this write was queued`,
      );
    }
    if (this.events.has('pty.input')) this.events.emit('pty.input', { type: 'pty.input', id, from, data });
  }

  resize(id: SessionId, cols: number, rows: number): void {
    const size = checkSize(cols, rows);
    const display = this.sessions.get(id);
    if (display?.restored) throw restoredRefusal(display.info, 'resize');
    const session = display?.info.readOnly && display.running ? display : this.runningSession(id, 'resize');
    if (session.info.cols === size.cols && session.info.rows === size.rows) return;
    try {
      // A display session has no terminal: its size is only the viewers'.
      session.process?.resize(size.cols, size.rows);
    } catch (error) {
      // The process exited and its terminal closed; pty.exited is on its way.
      const reason = error instanceof Error ? error.message : String(error);
      throw new PtyError('not_running', `cannot resize session '${id}': its terminal is closed (${reason})`);
    }
    session.info.cols = size.cols;
    session.info.rows = size.rows;
    this.events.emit('pty.updated', { type: 'pty.updated', info: session.snapshot() });
  }

  async kill(id: SessionId, signal?: NodeJS.Signals): Promise<void> {
    const session = this.requireSession(id);
    if (signal === undefined) return this.terminate(session);
    if (!isSignalName(signal)) throw new PtyError('invalid_argument', `unknown signal '${String(signal)}'`);
    if (session.info.readOnly || session.restored) return this.terminate(session);
    // SIGKILL is a forced close; other signals are messages the process may survive.
    if (signal === 'SIGKILL' && session.running) session.info.closeRequested = true;
    signalPosixSession(session.info.pid, signal);
    // A signal the process survives (SIGWINCH, a trapped SIGINT) must not hang the caller forever.
    await waitFor(() => !session.running, session.exited, this.config.killGraceMs);
  }

  async remove(id: SessionId): Promise<void> {
    const session = this.requireSession(id);
    await this.terminate(session);
    this.forget(session);
  }

  get(id: SessionId): PtySessionInfo | undefined {
    return this.sessions.get(id)?.snapshot();
  }

  list(): PtySessionInfo[] {
    return [...this.sessions.values()].map((session) => session.snapshot());
  }

  onSequences(id: SessionId, handlers: SequenceHandlers): () => void {
    return this.requireSession(id).sequences.on(handlers);
  }

  scanPosition(id: SessionId): ScanPosition {
    const { sequences } = this.requireSession(id);
    return { end: sequences.end, safeEnd: sequences.safeEnd };
  }

  read(id: SessionId, options?: ReadOptions): ReadResult {
    const session = this.requireSession(id);
    const { cursor, maxBytes, into } = parseReadOptions(options);
    const log = session.log;
    if (cursor !== undefined && cursor > log.end) {
      throw new PtyError('invalid_argument', `cursor ${cursor} is past the end of session ${id}'s output (${log.end})`);
    }
    const { data, cursor: from, next, skipped } = log.readFrom(cursor, maxBytes, into);
    const { status, exitCode, signal } = session.info;
    // Spelled out, not `...slice`: a viewer's pump reads once per chunk per session in a flood, and a
    // spread copies every field of the slice on each of those reads.
    return { data, cursor: from, next, skipped, end: log.end, status, exitCode, signal };
  }

  on<K extends keyof PtyServiceEventMap>(event: K, listener: (event: PtyServiceEventMap[K]) => void): () => void {
    return this.events.on(event, listener);
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    this.floods.dispose();
    this.loop.dispose();
    await Promise.all([...this.sessions.values()].map((session) => this.terminate(session)));
    this.readThread.dispose();
  }

  // The hot path: one append, one scan for every handler (the title's, the agent tool's), one event object per chunk.
  // A reusable chunk (a read thread batch) is lent to the listeners for their call, then goes back to the thread,
  // unless the log keeps it (nearly full: a flood's), which gives it back once trimmed.
  private onData(session: PtySession, chunk: Buffer, reusable = false): void {
    const log = session.log;
    const adopted = reusable && adoptable(chunk);
    const cursor = adopted ? log.adopt(new Uint8Array(chunk.buffer, 0, chunk.length)) : log.append(chunk);
    session.floodTurn?.read(chunk.length);
    this.retention.appended(session, chunk.length);
    // Before 'pty.data': its listeners (the agent tool's ingest) find the chunk's sequences applied.
    session.sequences.scan(cursor, chunk);
    if (this.events.has('pty.data')) {
      this.events.emit('pty.data', { type: 'pty.data', id: session.id, cursor, data: chunk });
    }
    if (reusable && !adopted) this.readThread.reuse(chunk.buffer as ArrayBuffer);
    const title = session.titles.take();
    if (title !== undefined && title !== session.info.title) {
      session.info.title = title;
      this.events.emit('pty.updated', { type: 'pty.updated', info: session.snapshot() });
    }
  }

  private onExit(session: PtySession, exit: PtyExit): void {
    session.floodTurn?.dispose();
    session.finish(exit.exitCode, exit.signal, exit.terminalHeld);
    this.quota.exited(session.info.source);
    this.afterExit(session);
  }

  /** A display session's end, as its creator (or a kill) reports it. */
  private endDisplay(session: PtySession, exitCode: number | null, signal: string | null): void {
    if (!session.running) return;
    session.finish(exitCode, signal, false);
    this.quota.displayEnded();
    this.afterExit(session);
  }

  private afterExit(session: PtySession): void {
    if (this.sessions.has(session.id)) this.retention.exited(session);
    this.events.emit('pty.exited', {
      type: 'pty.exited',
      id: session.id,
      exitCode: session.info.exitCode,
      signal: session.info.signal,
      info: session.snapshot(),
    });
    this.retention.enforce(session);
  }

  private evict(session: PtySession): void {
    // Lingering background processes of an evicted session are ended too; nothing awaits it.
    this.terminate(session).catch((error: unknown) => reportError(error, `ending the processes of evicted session ${session.id} failed`));
    this.forget(session);
  }

  private forget(session: PtySession): void {
    if (!this.sessions.delete(session.id)) return;
    this.retention.forgotten(session);
    this.events.emit('pty.removed', { type: 'pty.removed', id: session.id });
  }

  /**
   * Ends the session and everything in its session/process group: SIGHUP
   * (plus SIGCONT so stopped jobs see it), then SIGKILL after the grace
   * period for what survives (endSessionProcesses). Resolves once the
   * session has exited and none of its processes is alive.
   */
  private terminate(session: PtySession): Promise<void> {
    // Before the signal, so the exit event it causes says the close was asked for.
    if (session.running) session.info.closeRequested = true;
    // Nothing of ours runs behind a restored session: its process was the earlier host's, and is gone.
    if (session.restored) return Promise.resolve();
    // Nothing of ours runs behind a display session (and signalling pid 0 would reach our own group).
    if (session.info.readOnly) {
      this.endDisplay(session, null, null);
      return Promise.resolve();
    }
    // A flood waiting its turn reads again, so the end it is asked for is seen at once.
    session.floodTurn?.dispose();
    return endSessionProcesses(session, this.config.killGraceMs, this.labels);
  }

  private requireSession(id: SessionId): PtySession {
    const session = typeof id === 'string' ? this.sessions.get(id) : undefined;
    if (!session) throw new PtyError('no_such_session', `no session with id '${String(id)}'`);
    return session;
  }

  private runningSession(id: SessionId, action: string): PtySession {
    const session = this.requireSession(id);
    if (!session.running || !session.process) {
      throw new PtyError('not_running', `cannot ${action} session '${id}': it has exited`);
    }
    return session;
  }
}

/** `env` less the variables `names` lists; `env` itself where there are none. */
function withoutNames<T extends Record<string, string | undefined>>(env: T, names: readonly string[] | undefined): T {
  if (!names?.length) return env;
  const copy = { ...env };
  for (const name of names) delete copy[name];
  return copy;
}
