// The screens of a PTY service's sessions, rendered from their logs on demand, for the agent tool and the panel.
import { DisposableStore, reportError, type ErrorReporter, type ScreenMark, type SessionId, type SessionInfo } from '@ptydeck/contract';
import type { PtyService } from '../pty/types.js';
import { BackgroundScheduler, MAIN_THREAD_BUDGET, WORKER_BUDGET } from './background-scheduler.js';
import type { ScreenMirrorOptions } from './screen-mirror.js';
import { ScreenWorker, type ScreenWorkerOptions } from './screen-worker-host.js';
import { MIRROR_SCROLLBACK, type MirrorScreen, type ScreenReader } from './mirror-screen.js';
import { SessionScreen, type SessionScreenDeps } from './session-screen.js';

export type { MirrorScreen } from './mirror-screen.js';

export interface ScreenSnapshot {
  /** Serialized screen and scrollback, to be written into a reset terminal. */
  screen: string;
  /** Where commands' outputs start and end in `screen`, for those still in it (see CommandPlaces). */
  marks: ScreenMark[];
  /** Absolute cursor one past the last byte the screen reflects. */
  cursor: number;
}

export interface ScreenText {
  /** The visible screen as plain text, trailing blanks trimmed: what a person would see. */
  text: string;
  /** A full-screen program has switched to the alternate screen. */
  altScreen: boolean;
  /** Absolute cursor one past the last byte the screen reflects. */
  cursor: number;
}

/** The log cursors in [from, to] where a session's commands' outputs start or end, ascending. */
export type CommandCursors = (id: SessionId, from: number, to: number) => readonly number[];

const NO_COMMANDS: CommandCursors = () => [];

export interface ScreenServiceOptions {
  /**
   * Makes a session's headless terminal in this thread, for tests that inject
   * faults into it (a ScreenMirror, or one that fails). Default: terminals in
   * one worker thread for all sessions (ScreenWorker), parsed eagerly.
   */
  createScreen?: (options: ScreenMirrorOptions) => MirrorScreen;
  /** How the default worker is started (tests kill it). */
  worker?: Pick<ScreenWorkerOptions, 'spawn'>;
  /** Where a failed parse or read is reported. Default: the contract's reportError (stderr). */
  reportError?: ErrorReporter;
}

const SNAPSHOT: ScreenReader<ScreenSnapshot> = {
  read: async (screen, cursor) => ({ ...(await screen.snapshot(MIRROR_SCROLLBACK)), cursor }),
  gone: (cursor) => ({ screen: '', marks: [], cursor }),
  history: true,
};

const TEXT: ScreenReader<ScreenText> = {
  read: async (screen, cursor) => ({ ...(await screen.text()), cursor }),
  gone: (cursor) => ({ text: '', altScreen: false, cursor }),
  history: false,
};

/**
 * The screens of a PTY service's sessions, rendered from their byte logs:
 * one headless terminal per session, made on first use and fed by reading
 * the log from a cursor (see SessionScreen for when it parses), with resizes
 * applied where they happened in the stream. Both the agent tool (screen
 * reads) and the panel connections (resyncs) read from the one instance per
 * service, so a session is parsed once however many ask.
 */
export class ScreenService {
  private readonly screens = new Map<SessionId, SessionScreen>();
  private readonly deps: SessionScreenDeps;
  private readonly subscriptions = new DisposableStore();
  private disposed = false;
  /** The worker the screens parse in, unless the caller makes them (createScreen). */
  private readonly worker: ScreenWorker | undefined;
  /** Where the screens note commands' places (see markCommands). */
  private commandCursors: CommandCursors = NO_COMMANDS;

  constructor(
    private readonly service: PtyService,
    options: ScreenServiceOptions = {},
  ) {
    const report = options.reportError ?? reportError;
    const inThread = options.createScreen;
    if (!inThread) {
      this.worker = new ScreenWorker({ reportError: report, ...options.worker });
      this.worker.start();
    }
    const worker = this.worker;
    // Asked each time, not once: once the worker gave up, screens parse in this thread, lazily and
    // under the main thread's budget, as when the caller makes them.
    const inWorker = () => worker !== undefined && !worker.gaveUp;
    this.deps = {
      service,
      scheduler: new BackgroundScheduler(report, () => (inWorker() ? WORKER_BUDGET : MAIN_THREAD_BUDGET)),
      createScreen: inThread ?? ((screen) => worker!.createScreen(screen)),
      reportError: report,
      eager: inWorker,
      bulk: new Set(),
      commandCursors: (id, from, to) => this.commandCursors(id, from, to),
      // Only for the worker's screens: a screen made in this thread keeps what it is given.
      sliceBuffer: (maxBytes) => (inWorker() ? worker!.sliceBuffer(maxBytes) : undefined),
    };
    this.subscriptions.add(service.on('pty.created', (e) => this.ensure(e.info)));
    this.subscriptions.add(service.on('pty.updated', (e) => this.ensure(e.info).resized(e.info.cols, e.info.rows)));
    this.subscriptions.add(service.on('pty.data', (e) => this.screens.get(e.id)?.grew(e.cursor + e.data.length)));
    this.subscriptions.add(service.on('pty.exited', (e) => this.screens.get(e.id)?.exited()));
    this.subscriptions.add(
      service.on('pty.removed', (e) => {
        this.screens.get(e.id)?.dispose();
        this.screens.delete(e.id);
      }),
    );
    for (const info of service.list()) this.ensure(info);
  }

  /** The screen and scrollback as of everything in the session's log now, serialized to repaint a viewer. */
  snapshot(id: SessionId): Promise<ScreenSnapshot> {
    return this.read(id, SNAPSHOT);
  }

  /**
   * Has the screens note where commands' outputs start and end as they parse
   * (the timeline's records), so a snapshot says where each is in it; from
   * now on: output parsed already has none. Returns the undo.
   */
  markCommands(cursors: CommandCursors): () => void {
    this.commandCursors = cursors;
    return () => {
      if (this.commandCursors === cursors) this.commandCursors = NO_COMMANDS;
    };
  }

  /** The visible screen as text as of everything in the session's log now, for a model. */
  text(id: SessionId): Promise<ScreenText> {
    return this.read(id, TEXT);
  }

  /**
   * Resolves once the screen worker has warmed its parser and serializer up
   * (warmUpParser), as a host that has run a while has: for diagnostics (bench
   * figure 6 measures a resync against such a host). At once without a worker.
   */
  async warmedUp(): Promise<void> {
    if (this.worker && !this.worker.gaveUp) await this.worker.warmedUp();
  }

  /** How far a session's screen has parsed its log (undefined for an unknown session): for tests and diagnostics. */
  parsedThrough(id: SessionId): number | undefined {
    return this.screens.get(id)?.parsedThrough;
  }

  dispose(): void {
    this.disposed = true;
    this.subscriptions.dispose();
    this.deps.scheduler.dispose();
    for (const screen of this.screens.values()) screen.dispose();
    this.screens.clear();
    this.worker?.dispose().catch((error: unknown) => this.deps.reportError(error, 'stopping the screen worker failed'));
  }

  private read<T>(id: SessionId, reader: ScreenReader<T>): Promise<T> {
    const info = this.disposed ? undefined : this.service.get(id);
    if (!info) return Promise.resolve(reader.gone(0));
    return this.ensure(info).read(reader);
  }

  private ensure(info: SessionInfo): SessionScreen {
    let screen = this.screens.get(info.id);
    if (!screen) {
      screen = new SessionScreen(this.deps, info.id, info.cols, info.rows);
      this.screens.set(info.id, screen);
      // Its log is final already: an exited session, or a lost one an earlier host recorded.
      if (info.status !== 'running') screen.exited();
    }
    return screen;
  }
}
