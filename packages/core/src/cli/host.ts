// `ptydeck host` and `ptydeck serve`: the one host for a state directory (host/start-host.ts), until stopped or idle.
import { HOST_PROTOCOL_VERSION, MCP_PATH } from '@ptydeck/contract';
import { startHost, type Host } from '../host/start-host.js';
import { discoveryPath } from '../common/discovery.js';
import type { CliIo } from '../client/cli-io.js';
import { exitCodeFor, nextSignal, type StopReason } from '../common/signals.js';
import { styleFor } from '../client/style.js';
import { isLoopbackAddress } from '../common/loopback.js';

// The bundle's host entry hands out startHost as well: the e2e harness's host process (e2e/server-process.mjs) starts
// the host `ptydeck serve` runs, from the same one file (its import takes half the CPU of the unbundled modules').
export { startHost };

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

/**
 * The ptydeck host (host/start-host.ts) in this process, the only one for its
 * state directory, until a signal, `ptydeck stop` or, when nothing uses it,
 * its idle period. `ptydeck serve` is this in a terminal, printing its link;
 * `ptydeck host` is this for a service manager or started detached by a
 * client (ensure-host.ts), writing a log only.
 */
export async function runHost(command: HostCommand, io: CliIo): Promise<number> {
  const signals = nextSignal();
  const log = (line: string) => io.stderr.write(command.kind === 'host' ? `${new Date().toISOString()} ${line}\n` : `ptydeck: ${line}\n`);
  try {
    const style = styleFor(io.stdout);
    const idleMs = idleExitSeconds(command) * 1000;
    const host = await startHost({
      port: command.port,
      host: command.host,
      idleExitMs: idleMs,
      log,
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
    });
    if (command.kind === 'serve') printWelcome(command, host, io);
    else log(`host (pid ${process.pid}, protocol ${HOST_PROTOCOL_VERSION}) serving ${host.url} for ${host.stateDir}`);
    const reason: StopReason | 'idle' | 'stop' = await Promise.race([signals.stopped, host.stopRequested]);
    log(
      reason === 'idle'
        ? `no sessions, chats or clients for ${idleMs / 1000} s: stopping`
        : reason === 'stop'
          ? 'asked to stop (`ptydeck stop`): ending sessions and stopping'
          : `${reason}: ending sessions and stopping`,
    );
    // A signal is someone's decision to stop it (kill, systemd, a logout), as `ptydeck stop` is (which told them
    // already): the bridges start no host until the developer does. Idle, no agent was connected.
    if (reason !== 'idle' && reason !== 'stop') host.announceStop();
    await host.close();
    return reason === 'idle' || reason === 'stop' ? 0 : exitCodeFor(reason);
  } finally {
    signals.dispose();
  }
}

function printWelcome(command: HostCommand, host: Host, io: CliIo): void {
  const style = styleFor(io.stdout);
  if (!isLoopback(command.host)) io.stderr.write(`ptydeck: warning: listening on ${command.host}, reachable beyond this machine's loopback\n`);
  io.stdout.write(
    [
      `${style.bold('ptydeck')} is running at ${host.url}`,
      // URLs stay whole on one line whatever the width, so they can be copied or clicked.
      `Open the panel (one-time link): ${style.cyan(host.panelUrl())}`,
      `Another link later: \`ptydeck url\` in a terminal of your own (not inside ptydeck).`,
      `Agents: MCP over HTTP at ${host.url}${MCP_PATH} with the bearer token in ${discoveryPath(host.stateDir)},`,
      `        or over stdio with \`ptydeck mcp\`.`,
      style.dim('Press Ctrl-C to stop.'),
      '',
    ].join('\n'),
  );
}

function idleExitSeconds(command: HostCommand): number {
  if (command.idleExitSeconds !== undefined) return command.idleExitSeconds;
  const fromEnv = process.env[IDLE_EXIT_ENV];
  if (fromEnv !== undefined && /^\d+(\.\d+)?$/.test(fromEnv)) return Number(fromEnv);
  return command.kind === 'host' ? DEFAULT_HOST_IDLE_EXIT_S : 0;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || isLoopbackAddress(host);
}
