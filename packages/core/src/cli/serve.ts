import { MCP_PATH } from '@ptydeck/contract';
import { startLocalServer } from '../server/local-server.js';
import { discoveryPath, readDiscovery, resolveStateDir } from '../server/discovery.js';
import type { CliIo } from './main.js';
import { bounded, exitCodeFor, nextSignal } from './signals.js';
import { styleFor } from './style.js';

/** Bound on ending every session at shutdown: the kill grace (3 s) plus reaping. */
const SHUTDOWN_MS = 8000;

/** `ptydeck serve`: the local server until SIGINT or SIGTERM. */
export async function runServe(command: { port: number; host: string }, io: CliIo): Promise<number> {
  const signals = nextSignal();
  try {
    const previous = readDiscovery();
    const style = styleFor(io.stdout);
    const server = await startLocalServer({
      port: command.port,
      host: command.host,
      // Where the server cannot tell who runs `ptydeck url`, the link goes to this terminal, the developer's.
      presentPanelLink: (link) => {
        io.stdout.write(`New panel link (asked for by \`ptydeck url\`): ${style.cyan(link)}\n`);
        return `the terminal running \`ptydeck serve\` (pid ${process.pid})`;
      },
    }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') throw new Error(`port ${command.port} on ${command.host} is already in use; pick another with --port or use --port 0`);
      if (error.code === 'EADDRNOTAVAIL') throw new Error(`cannot bind ${command.host}: no such local address`);
      throw error;
    });
    if (previous.status === 'stale') {
      io.stderr.write(`ptydeck: replaced a stale ${previous.path} (pid ${previous.record.pid} is gone)\n`);
    } else if (previous.status === 'live' && previous.record.pid !== process.pid) {
      io.stderr.write(
        `ptydeck: another ptydeck (pid ${previous.record.pid}) runs at ${previous.record.url}; \`ptydeck mcp\` now joins this one instead\n`,
      );
    }
    if (!isLoopback(command.host)) {
      io.stderr.write(`ptydeck: warning: listening on ${command.host}, reachable beyond this machine's loopback\n`);
    }
    io.stdout.write(
      [
        `${style.bold('ptydeck')} is running at ${server.url}`,
        // URLs stay whole on one line whatever the width, so they can be copied or clicked.
        `Open the panel (one-time link): ${style.cyan(server.panelUrl())}`,
        `Another link later: \`ptydeck url\` in a terminal of your own (not inside ptydeck).`,
        `Agents: MCP over HTTP at ${server.url}${MCP_PATH} with the bearer token in ${discoveryPath(resolveStateDir())},`,
        `        or over stdio with \`ptydeck mcp\`.`,
        style.dim('Press Ctrl-C to stop.'),
        '',
      ].join('\n'),
    );
    const reason = await signals.stopped;
    io.stderr.write(`ptydeck: ${reason}: ending sessions and stopping\n`);
    await bounded(server.close(), SHUTDOWN_MS);
    return exitCodeFor(reason);
  } finally {
    signals.dispose();
  }
}

function isLoopback(host: string): boolean {
  return host === '127.0.0.1' || host === 'localhost' || host === '::1' || host.startsWith('127.');
}
