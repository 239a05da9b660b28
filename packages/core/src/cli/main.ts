// The ptydeck CLI's entry: parses the command and loads only the module that runs it, so a start stays cheap.
import { parseCommand } from './args.js';
import type { CliIo } from '../client/cli-io.js';
import { styleFor } from '../client/style.js';
import { formatUsageError, UsageError } from './usage.js';
import { isLight, reportFailure, runLight } from './light-commands.js';
import { EXIT_USAGE } from '../common/exit-codes.js';

/** Runs the ptydeck CLI and resolves with its exit code; the launcher exits with it. */
export async function main(argv: string[], io: CliIo = { stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  let command;
  try {
    command = parseCommand(argv);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(formatUsageError(error, styleFor(io.stderr).red));
      return EXIT_USAGE;
    }
    throw error;
  }
  try {
    if (isLight(command)) return await runLight(command, io);
    switch (command.kind) {
      case 'open':
        return await (await import('../client/open.js')).runOpen(io);
      case 'serve':
      case 'host':
        // The host's modules (PTYs, screens, the agent tool, chats) load only here: every other command is a client.
        return await (await import('./host.js')).runHost(command, io);
      case 'stop':
        return await (await import('../client/stop.js')).runStop(command, io);
      case 'ls':
        return await (await import('../client/remote.js')).runRemoteLs({ ...command, remote: command.remote! }, io);
      case 'attach':
        if (command.remote !== undefined) return await (await import('../client/remote.js')).runRemoteAttach({ ...command, remote: command.remote }, io);
        return await (await import('../client/attach.js')).runAttach(command, io);
      case 'export':
        return await (await import('../client/export.js')).runExport(command, io);
      case 'remote-add':
      case 'remote-ls':
      case 'remote-rm':
        return await (await import('../client/remote.js')).runRemoteCommand(command, io);
      case 'sandbox-check':
        return await (await import('../client/sandbox-check.js')).runSandboxCheck(command, io);
      case 'panel-channel':
        // stdout belongs to the channel's frames.
        return await (await import('../client/panel-channel.js')).runPanelChannel((line) => io.stderr.write(`${line}\n`));
      case 'mcp': {
        // stdout belongs to the protocol: nothing else may be written there.
        const log = (line: string) => io.stderr.write(`${line}\n`);
        if (command.embedded) return await (await import('../host/embedded-mcp.js')).runEmbeddedMcp(command, log);
        return await (await import('../client/mcp.js')).runMcp(command, log);
      }
    }
  } catch (error) {
    return reportFailure(error, io);
  }
}
