// `ptydeck host` and `ptydeck serve`: the one host for a state directory, until stopped or idle.
import { HOST_PROTOCOL_VERSION, MCP_PATH } from '@ptydeck/contract';
import { openSessionStore, sessionStoreDir, type SessionStore } from '../persist/session-store.js';
import { loadHostSettings } from '../host/host-config.js';
import { resolveConfigDir } from '../chats/agents-config.js';
import { startLocalServer, type LocalServer } from '../server/local-server.js';
import { discoveryPath, readDiscovery, resolveStateDir } from '../server/discovery.js';
import { acquireHostLock } from '../host/host-lock.js';
import { watchIdle } from '../host/idle-watch.js';
import { stopRoute } from '../host/stop-route.js';
import type { CliIo } from './cli-io.js';
import { bounded, exitCodeFor, nextSignal, type StopReason } from './signals.js';
import { styleFor } from './style.js';

/** Bound on ending every session at shutdown: the kill grace (3 s) plus reaping. */
const SHUTDOWN_MS = 8000;
/** `ptydeck host`'s idle exit when neither --idle-exit nor the variable says: 10 minutes. */
const DEFAULT_HOST_IDLE_EXIT_S = 600;
export const IDLE_EXIT_ENV = 'PTYDECK_IDLE_EXIT';

export interface HostCommand {
  /** `serve` prints a panel link on its terminal; `host` writes only a log (it may go to a file agents can read). */
  kind: 'serve' | 'host';
  port: number;
  host: string;
  /** Seconds; undefined: $PTYDECK_IDLE_EXIT, else 600 for `host` and never for `serve`. */
  idleExitSeconds?: number;
}

type HostStop = StopReason | 'idle' | 'stop';

/**
 * The ptydeck host: the local server (PTY service, agent tool, chats, panel and
 * MCP), the only one for its state directory, until a signal, `ptydeck stop`
 * or, when nothing uses it, its idle period. `ptydeck serve` is this in a
 * terminal, printing its link; `ptydeck host` is this for a service manager or
 * started detached by a client (ensure-host.ts), writing a log only.
 */
export async function runHost(command: HostCommand, io: CliIo): Promise<number> {
  const signals = nextSignal();
  const log = (line: string) => io.stderr.write(command.kind === 'host' ? `${new Date().toISOString()} ${line}\n` : `ptydeck: ${line}\n`);
  try {
    const stateDir = resolveStateDir();
    // Throws on a state directory others could write, before anything is taken or written.
    const previous = readDiscovery(stateDir);
    const lock = acquireHostLock(stateDir);
    if (!lock.acquired) {
      const running = previous.status === 'live' ? ` at ${previous.record.url}` : '';
      throw new Error(
        `a ptydeck host already runs for ${stateDir} (pid ${lock.holder.pid ?? '?'}${running}): get a panel link with \`ptydeck url\`, or stop it with \`ptydeck stop\``,
      );
    }
    let server: LocalServer | undefined;
    let store: SessionStore | undefined;
    try {
      store = openStore(stateDir, log);
      let stopAsked!: () => void;
      const stopped = new Promise<'stop'>((resolve) => (stopAsked = () => resolve('stop')));
      server = await startServer(
        command,
        io,
        stateDir,
        store,
        stopRoute({
          sessions: () => server?.service.list() ?? [],
          chatCount: () => server?.chats.list().length ?? 0,
          announceStop: () => server?.announceStop() ?? 0,
          onStop: () => stopAsked(),
        }),
      );
      if (previous.status === 'stale') log(`replaced a stale ${previous.path} (pid ${previous.record.pid} is gone)`);
      // A desktop app of this release runs its own core without the host lock, and wrote the file before us.
      else if (previous.status === 'live' && previous.record.pid !== process.pid) {
        log(`another ptydeck (pid ${previous.record.pid}) runs at ${previous.record.url}; \`ptydeck mcp\` now joins this one instead`);
      }
      if (command.kind === 'serve') printWelcome(command, server, io, stateDir);
      else log(`host (pid ${process.pid}, protocol ${HOST_PROTOCOL_VERSION}) serving ${server.url} for ${stateDir}`);
      const idleMs = idleExitSeconds(command) * 1000;
      let idle!: () => void;
      const idled = new Promise<'idle'>((resolve) => (idle = () => resolve('idle')));
      const live = server;
      const stopWatching = idleMs > 0 ? watchIdle({ idleMs, isIdle: () => isUnused(live), onIdle: idle }) : () => {};
      const reason: HostStop = await Promise.race([signals.stopped, stopped, idled]);
      stopWatching();
      log(
        reason === 'idle'
          ? `no sessions, chats or clients for ${idleMs / 1000} s: stopping`
          : reason === 'stop'
            ? 'asked to stop (`ptydeck stop`): ending sessions and stopping'
            : `${reason}: ending sessions and stopping`,
      );
      await bounded(server.close(), SHUTDOWN_MS);
      return reason === 'idle' || reason === 'stop' ? 0 : exitCodeFor(reason);
    } finally {
      store?.dispose();
      lock.release();
    }
  } finally {
    signals.dispose();
  }
}

/**
 * The store that keeps sessions across this host's death, in `<stateDir>/sessions`,
 * unless config.json or PTYDECK_PERSIST turns it off (host-config.ts: the
 * file holds, whoever starts the host). One that cannot be opened (a
 * directory others could write) is reported, and the host runs without it.
 */
function openStore(stateDir: string, log: (line: string) => void): SessionStore | undefined {
  const settings = loadHostSettings(resolveConfigDir());
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

async function startServer(command: HostCommand, io: CliIo, stateDir: string, store: SessionStore | undefined, route: ReturnType<typeof stopRoute>): Promise<LocalServer> {
  const style = styleFor(io.stdout);
  return startLocalServer({
    port: command.port,
    host: command.host,
    stateDir,
    route,
    ...(store ? { sessionStore: store } : {}),
    // Where the server cannot tell who runs `ptydeck url`, the link goes to this terminal, the developer's.
    // Never into `ptydeck host`'s log: agents' shells can read that file.
    ...(command.kind === 'serve'
      ? {
          presentPanelLink: (link: string) => {
            io.stdout.write(`New panel link (asked for by \`ptydeck url\`): ${style.cyan(link)}\n`);
            return `the terminal running \`ptydeck serve\` (pid ${process.pid})`;
          },
        }
      : {}),
  }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'EADDRINUSE') throw new Error(`port ${command.port} on ${command.host} is already in use; pick another with --port or use --port 0`);
    if (error.code === 'EADDRNOTAVAIL') throw new Error(`cannot bind ${command.host}: no such local address`);
    throw error;
  });
}

function printWelcome(command: HostCommand, server: LocalServer, io: CliIo, stateDir: string): void {
  const style = styleFor(io.stdout);
  if (!isLoopback(command.host)) io.stderr.write(`ptydeck: warning: listening on ${command.host}, reachable beyond this machine's loopback\n`);
  io.stdout.write(
    [
      `${style.bold('ptydeck')} is running at ${server.url}`,
      // URLs stay whole on one line whatever the width, so they can be copied or clicked.
      `Open the panel (one-time link): ${style.cyan(server.panelUrl())}`,
      `Another link later: \`ptydeck url\` in a terminal of your own (not inside ptydeck).`,
      `Agents: MCP over HTTP at ${server.url}${MCP_PATH} with the bearer token in ${discoveryPath(stateDir)},`,
      `        or over stdio with \`ptydeck mcp\`.`,
      style.dim('Press Ctrl-C to stop.'),
      '',
    ].join('\n'),
  );
}

/** Nothing would be lost by exiting: no running session, no chat, no panel, no agent connected. */
function isUnused(server: LocalServer): boolean {
  return (
    server.panelCount() === 0 &&
    server.agents.list().length === 0 &&
    server.chats.list().length === 0 &&
    !server.service.list().some((session) => session.status === 'running')
  );
}

function idleExitSeconds(command: HostCommand): number {
  if (command.idleExitSeconds !== undefined) return command.idleExitSeconds;
  const fromEnv = process.env[IDLE_EXIT_ENV];
  if (fromEnv !== undefined && /^\d+(\.\d+)?$/.test(fromEnv)) return Number(fromEnv);
  return command.kind === 'host' ? DEFAULT_HOST_IDLE_EXIT_S : 0;
}

function isLoopback(host: string): boolean {
  return host === '127.0.0.1' || host === 'localhost' || host === '::1' || host.startsWith('127.');
}
