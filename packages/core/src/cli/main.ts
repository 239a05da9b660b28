// The ptydeck CLI's entry: parses the command and loads only the module that runs it, so a start stays cheap.
import { parseCommand } from './args.js';
import type { CliIo } from '../client/cli-io.js';
import { styleFor } from '../client/style.js';
import { ATTACH_HELP, EXPORT_HELP, formatUsageError, HOST_HELP, LS_HELP, MCP_HELP, REMOTE_HELP, ROOT_HELP, SANDBOX_HELP, SERVE_HELP, STATUS_HELP, STOP_HELP, URL_HELP, UsageError } from './usage.js';
import { EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from '../common/exit-codes.js';

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
    switch (command.kind) {
      case 'help':
        io.stdout.write({ root: ROOT_HELP, serve: SERVE_HELP, host: HOST_HELP, mcp: MCP_HELP, url: URL_HELP, stop: STOP_HELP, status: STATUS_HELP, ls: LS_HELP, attach: ATTACH_HELP, export: EXPORT_HELP, sandbox: SANDBOX_HELP, remote: REMOTE_HELP }[command.topic]);
        return EXIT_OK;
      case 'version': {
        // The protocol decides whether this CLI and a running host understand each other.
        const { HOST_PROTOCOL_VERSION } = await import('@ptydeck/contract');
        const { packageVersion } = await import('../common/package-version.js');
        io.stdout.write(`ptydeck ${packageVersion()} (host protocol ${HOST_PROTOCOL_VERSION})\n`);
        return EXIT_OK;
      }
      case 'open':
        return await (await import('../client/open.js')).runOpen(io);
      case 'serve':
      case 'host':
        // The host's modules (PTYs, screens, the agent tool, chats) load only here: every other command is a client.
        return await (await import('./host.js')).runHost(command, io);
      case 'stop':
        return await (await import('../client/stop.js')).runStop(command, io);
      case 'url': {
        const answer = await (await import('../client/url.js')).freshPanelLink();
        if ('url' in answer) io.stdout.write(`${answer.url}\n`);
        // stdout stays empty so `open "$(ptydeck url)"` never opens a sentence.
        else io.stderr.write(`ptydeck: this system cannot tell ptydeck who is asking, so the new link is in ${answer.shownIn}\n`);
        return EXIT_OK;
      }
      case 'status':
        return await (await import('../client/status.js')).runStatus(command, io);
      case 'ls':
        if (command.remote !== undefined) return await (await import('../client/remote.js')).runRemoteLs({ ...command, remote: command.remote }, io);
        return await (await import('../client/ls.js')).runLs(command, io);
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
    io.stderr.write(`${styleFor(io.stderr).red(`ptydeck: ${error instanceof Error ? error.message : String(error)}`)}\n`);
    return EXIT_FAILURE;
  }
}
