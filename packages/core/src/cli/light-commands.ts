// The commands a short start serves (`--help`, `--version`, `ls`, `url`, `status`), in the launcher's CommonJS entry (light-main.ts) and main.ts alike.
import { HOST_PROTOCOL_VERSION } from '@ptydeck/contract';
import type { Command } from './args.js';
import type { CliIo } from '../client/cli-io.js';
import { styleFor } from '../client/style.js';
import { runLs } from '../client/ls.js';
import { runStatus } from '../client/status.js';
import { freshPanelLink } from '../client/url.js';
import { ATTACH_HELP, EXPORT_HELP, HOST_HELP, LS_HELP, MCP_HELP, REMOTE_HELP, ROOT_HELP, SANDBOX_HELP, SERVE_HELP, STATUS_HELP, STOP_HELP, URL_HELP } from './usage.js';
import { EXIT_FAILURE, EXIT_OK } from '../common/exit-codes.js';
import { packageVersion } from '../common/package-version.js';

type LightCommand = Extract<Command, { kind: 'help' | 'version' | 'url' | 'status' }> | (Extract<Command, { kind: 'ls' }> & { remote: undefined });

/** The commands this module runs: a client that asks the host one thing and exits (bench figure 12). */
export function isLight(command: Command): command is LightCommand {
  return command.kind === 'help' || command.kind === 'version' || command.kind === 'url' || command.kind === 'status' || (command.kind === 'ls' && command.remote === undefined);
}

/** Runs one light command; light-main.ts and main.ts both run them through here, so both entries behave alike. */
export async function runLight(command: LightCommand, io: CliIo): Promise<number> {
  switch (command.kind) {
    case 'help':
      io.stdout.write({ root: ROOT_HELP, serve: SERVE_HELP, host: HOST_HELP, mcp: MCP_HELP, url: URL_HELP, stop: STOP_HELP, status: STATUS_HELP, ls: LS_HELP, attach: ATTACH_HELP, export: EXPORT_HELP, sandbox: SANDBOX_HELP, remote: REMOTE_HELP }[command.topic]);
      return EXIT_OK;
    case 'version':
      // The protocol decides whether this CLI and a running host understand each other.
      io.stdout.write(`ptydeck ${packageVersion()} (host protocol ${HOST_PROTOCOL_VERSION})\n`);
      return EXIT_OK;
    case 'url': {
      const answer = await freshPanelLink();
      if ('url' in answer) io.stdout.write(`${answer.url}\n`);
      // stdout stays empty so `open "$(ptydeck url)"` never opens a sentence.
      else io.stderr.write(`ptydeck: this system cannot tell ptydeck who is asking, so the new link is in ${answer.shownIn}\n`);
      return EXIT_OK;
    }
    case 'status':
      return runStatus(command, io);
    case 'ls':
      return runLs(command, io);
  }
}

/** A command's failure as the one red line every command ends with. */
export function reportFailure(error: unknown, io: CliIo): number {
  io.stderr.write(`${styleFor(io.stderr).red(`ptydeck: ${error instanceof Error ? error.message : String(error)}`)}\n`);
  return EXIT_FAILURE;
}
