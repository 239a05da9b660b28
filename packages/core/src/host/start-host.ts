// The host's one composition root: `ptydeck host` and `serve`, the desktop app's in-process core, the e2e harness and the bench all start a host here.
import type { AgentInfo } from '@ptydeck/contract';
import { bounded } from '../common/bounded.js';
import { openSessionStore, sessionStoreDir, type SessionStore } from '../persist/session-store.js';
import type { PtyService } from '../pty/types.js';
import type { ScreenService } from '../screen/index.js';
import { resolveConfigDir } from '../chats/agents-config.js';
import { readDiscovery, resolveStateDir } from '../common/discovery.js';
import { acquireHostLock, hostLockHolder } from '../common/host-lock.js';
import { letWorkersSizeYoungGeneration, shedHostAllocatorEnv } from '../common/host-node-flags.js';
import { loadHostSettings } from './host-config.js';
import { watchIdle } from './idle-watch.js';
import { startLocalServer, type LocalServer, type LocalServerOptions } from './local-server.js';
import { stopRoute } from './stop-route.js';
import type { ServerRoute } from '../server/http-server.js';
import { EMPTY_FILE_DIR, removeEmptyFile } from '../sandbox/index.js';
import { recordRoute } from './record-route.js';
import { removeDeadHostsTempDirs } from '../common/host-temp-dirs.js';
import { SHELL_INTEGRATION_DIR } from '../terminal-tool/index.js';

/** Bound on ending every session at close: the kill grace (3 s) plus reaping. */
const SHUTDOWN_MS = 8000;

export interface HostOptions
  extends Pick<LocalServerOptions, 'port' | 'host' | 'appDir' | 'configDir' | 'launchDir' | 'agentEnv' | 'presentPanelLink' | 'limits' | 'screenThread' | 'screenWorkerSpawn'> {
  /** Default $PTYDECK_STATE_DIR, $XDG_STATE_HOME/ptydeck, ~/.local/state/ptydeck. */
  stateDir?: string;
  /**
   * Keep sessions in `<stateDir>/sessions` across this host's death, restoring what it
   * holds before serving. Default: as config.json and PTYDECK_PERSIST say (host-config.ts).
   * A test or a benchmark may turn it on or off; config.json's off still wins over true.
   */
  persist?: boolean;
  /**
   * Take the state directory's host lock, so that this is its only host (default).
   * False only for the desktop app's in-process core, which runs beside a host
   * where one runs (on systems where a client cannot get panel scope from it).
   */
  exclusive?: boolean;
  /** Stop by itself once nothing would be lost for this long (isUnused); 0 (default) never. */
  idleExitMs?: number;
  /** Where the host says what it did (a stale server.json replaced, persistence off, ...). Default: nowhere. */
  log?: (line: string) => void;
}

/** Why a host stopped by itself: `ptydeck stop` asked, or nothing used it for its idle period. */
export type HostStopRequest = 'stop' | 'idle';

/**
 * What a host's own process may look at that no client sees: for the e2e
 * harness and the bench, which run the host in a process of their own and
 * drive or count its sessions there. Nothing here is reachable from outside.
 */
export interface HostDiagnostics {
  readonly service: PtyService;
  readonly screens: ScreenService;
  /** MCP clients connected now. */
  agents(): AgentInfo[];
  /** Panel sockets open now. */
  panelCount(): number;
  /** Where the session store keeps sessions; undefined without one. */
  readonly storeDir: string | undefined;
  /** Resolves once the session store has written everything the sessions printed so far (at once without one). */
  persisted(): Promise<void>;
}

export interface Host {
  /** http://127.0.0.1:PORT */
  url: string;
  port: number;
  stateDir: string;
  /** Agent scope, also in server.json. Never log it. */
  agentToken: string;
  /** Panel scope, only in this process's memory. Never log it. */
  panelToken: string;
  /** Changes on every start. */
  instance: string;
  /** The panel URL with a fresh one-time ticket. */
  panelUrl(): string;
  /** Resolves when the host asks to be stopped (`ptydeck stop`, or idle); the caller then calls close(). */
  stopRequested: Promise<HostStopRequest>;
  /**
   * Tells the agents' `ptydeck mcp` bridges that the host is being stopped on
   * purpose, as `ptydeck stop` does, so they start no new one (call before
   * close()); answers how many agents were connected.
   */
  announceStop(): number;
  /**
   * Ends every session (bounded), stops serving, flushes and closes the store, releases the lock.
   * After `ptydeck stop` (stopRequested), every session is removed from the store once all have
   * ended, so the next host starts clean; after anything else (a signal, idle, a close that runs out
   * of time, an older host retired for a newer one) the store keeps them for the next host.
   */
  close(): Promise<void>;
  diagnostics: HostDiagnostics;
}

/**
 * Starts the ptydeck host for a state directory: takes its lock, opens its
 * session store, builds the services (PTY service, screens, agent tool, chats,
 * sandbox settings, the developer's environment, process watch; host/host-services.ts)
 * and serves them (host/local-server.ts) with the host's /stop route, watching for idleness.
 */
export async function startHost(options: HostOptions = {}): Promise<Host> {
  // Before anything reads the environment: what tuned this process's allocator is not the sessions'.
  shedHostAllocatorEnv();
  // Before any worker starts: each sizes its own young generation (the screen worker's and the read thread's are small).
  letWorkersSizeYoungGeneration();
  const log = options.log ?? (() => {});
  const stateDir = options.stateDir ?? resolveStateDir();
  // Throws on a state directory others could write, before anything is taken or written.
  const previous = readDiscovery(stateDir);
  const lock = (options.exclusive ?? true) ? acquireHostLock(stateDir) : undefined;
  if (lock && !lock.acquired) {
    const running = previous.status === 'live' ? ` at ${previous.record.url}` : '';
    throw new Error(
      `a ptydeck host already runs for ${stateDir} (pid ${lock.holder.pid ?? '?'}${running}): get a panel link with \`ptydeck url\`, or stop it with \`ptydeck stop\``,
    );
  }
  const release = () => {
    if (lock?.acquired) lock.release();
  };
  let store: SessionStore | undefined;
  let server: LocalServer | undefined;
  try {
    store = openStore(stateDir, options, log);
    let requestStop!: (reason: HostStopRequest) => void;
    // Set by `ptydeck stop` only: the developer ended these sessions, and a clean stop leaves none behind.
    let forgetSessions = false;
    // Until the host stops: a stopping host that wrote its record back would leave clients joining a host on its way out.
    let keepRecord = true;
    const stopRequested = new Promise<HostStopRequest>((resolve) => (requestStop = resolve));
    server = await startLocalServer({
      port: options.port,
      host: options.host,
      appDir: options.appDir,
      configDir: options.configDir,
      launchDir: options.launchDir,
      agentEnv: options.agentEnv,
      presentPanelLink: options.presentPanelLink,
      limits: options.limits,
      screenThread: options.screenThread,
      ...(options.screenWorkerSpawn ? { screenWorkerSpawn: options.screenWorkerSpawn } : {}),
      stateDir,
      ...(store ? { sessionStore: store } : {}),
      route: either(
        stopRoute({
          sessions: () => server?.service.list() ?? [],
          chatCount: () => server?.chats.list().length ?? 0,
          announceStop: () => server?.announceStop() ?? 0,
          onStop: (how) => {
            keepRecord = false;
            forgetSessions = how === 'stop';
            requestStop('stop');
          },
        }),
        // Only the lock's holder keeps its record: a client trusts no other host's (client/host-check.ts), and a
        // desktop app's core, which runs without the lock, leaves server.json to whoever writes next, as before.
        recordRoute({
          record: () => (keepRecord && lock?.acquired ? server?.discoveryRecord : undefined),
          holdsLock: () => lock?.acquired === true && hostLockHolder(stateDir)?.identity === lock.identity,
          stateDir,
          log,
        }),
      ),
    }).catch((error: NodeJS.ErrnoException) => {
      const where = options.host ?? '127.0.0.1';
      if (error.code === 'EADDRINUSE') throw new Error(`port ${options.port} on ${where} is already in use; pick another with --port or use --port 0`);
      if (error.code === 'EADDRNOTAVAIL') throw new Error(`cannot bind ${where}: no such local address`);
      throw error;
    });
    if (previous.status === 'stale') log(`replaced a stale ${previous.path} (pid ${previous.record.pid} is gone)`);
    // A desktop app's in-process core runs without the host lock, and wrote the file before us.
    else if (previous.status === 'live' && previous.record.pid !== process.pid) {
      log(`another ptydeck (pid ${previous.record.pid}) runs at ${previous.record.url}; \`ptydeck mcp\` now joins this one instead`);
    }
    // What a killed host left in the temporary directory, its sandboxes' empty file and its shells' rcfiles
    // (this host removes its own as it stops), looked for once the host serves, off the way of the client that started it.
    void removeDeadHostsTempDirs({ ...EMPTY_FILE_DIR, ...SHELL_INTEGRATION_DIR }).catch(() => {});
    const live = server;
    const idleMs = options.idleExitMs ?? 0;
    const stopWatching = idleMs > 0 ? watchIdle({ idleMs, isIdle: () => isUnused(live), onIdle: () => requestStop('idle') }) : () => {};
    const opened = store;
    let closing: Promise<void> | undefined;
    return {
      url: live.url,
      port: live.port,
      stateDir,
      agentToken: live.agentToken,
      panelToken: live.panelToken,
      instance: live.instance,
      panelUrl: () => live.panelUrl(),
      stopRequested,
      announceStop: () => live.announceStop(),
      close: () =>
        (closing ??= (async () => {
          keepRecord = false;
          stopWatching();
          try {
            await bounded(live.close(forgetSessions ? 'forget' : 'keep'), SHUTDOWN_MS);
          } finally {
            opened?.dispose();
            removeEmptyFile();
            release();
          }
        })()),
      diagnostics: {
        service: live.service,
        screens: live.screens,
        agents: () => live.agents.list(),
        panelCount: () => live.panelCount(),
        storeDir: opened ? sessionStoreDir(stateDir) : undefined,
        persisted: async () => {
          await opened?.flush();
        },
      },
    };
  } catch (error) {
    store?.dispose();
    release();
    throw error;
  }
}

/**
 * The store that keeps sessions across this host's death, in `<stateDir>/sessions`,
 * unless config.json or PTYDECK_PERSIST turns it off (host-config.ts: the file
 * holds, whoever starts the host), or the caller does. One that cannot be
 * opened (a directory others could write) is reported, and the host runs without it.
 */
function openStore(stateDir: string, options: HostOptions, log: (line: string) => void): SessionStore | undefined {
  if (options.persist === false) return undefined;
  const settings = loadHostSettings(options.configDir ?? resolveConfigDir(options.agentEnv ?? process.env));
  if (settings.problem) log(`${settings.problem}; using its strictest reading`);
  if (!settings.persist) {
    log(`session persistence is off (${settings.persistOffBecause}): sessions will not be kept if this host dies`);
    return undefined;
  }
  try {
    return openSessionStore({ dir: sessionStoreDir(stateDir) });
  } catch (error) {
    log(`sessions will not be kept if this host dies: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

/** Nothing would be lost by stopping: no running session, no chat, no panel, no agent connected. */
function isUnused(server: LocalServer): boolean {
  return (
    server.panelCount() === 0 &&
    server.agents.list().length === 0 &&
    server.chats.list().length === 0 &&
    !server.service.list().some((session) => session.status === 'running')
  );
}

/** The first of two routes that handles a request. */
function either(first: ServerRoute, second: ServerRoute): ServerRoute {
  return (req, res, asker) => first(req, res, asker) || second(req, res, asker);
}
