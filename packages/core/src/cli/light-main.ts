// The launcher's CommonJS entry: the light commands and `ptydeck attach`, without Node's ESM loader.
import { parseCommand } from './args.js';
import type { CliIo } from '../client/cli-io.js';
import { standardIo } from '../client/direct-output.js';
import { dropEarlyConnection } from '../client/early-connection.js';
import { isLight, reportFailure, runLight } from './light-commands.js';

/**
 * The launcher's first stop: runs a light command or a local `ptydeck attach`
 * and resolves with its exit code, or resolves undefined for anything else
 * (a usage error included), which main.ts runs. This module and what it
 * loads are bundled as one CommonJS file (rolldown.config.mjs): Node's ESM
 * loader reads a module's imports through its thread pool, a wait on a
 * loaded machine, and was a sixth of such a start (bench figure 12). Attach
 * is here and not in light-commands.ts, which main.ts imports, and in a
 * CommonJS chunk of its own. Resolves once the command's output is written
 * (standardIo), so the launcher may exit right away.
 */
export async function lightMain(argv: string[], given?: CliIo): Promise<number | undefined> {
  let command;
  try {
    command = parseCommand(argv);
  } catch {
    return undefined;
  }
  // The launcher may have opened the host's connection before this code loaded (early-connection.ts): a command
  // that is not one of these, or takes another way, closes it unused.
  if (!(command.kind === 'attach' && command.remote === undefined) && !isLight(command)) {
    dropEarlyConnection();
    return undefined;
  }
  const standard = given ? undefined : standardIo();
  const io = given ?? standard!.io;
  try {
    // A chunk of its own (required, no ESM loader): `ls` and `url` do not parse it.
    if (command.kind === 'attach') return await (await import('../client/attach.js')).runAttach(command, io);
    return await runLight(command, io);
  } catch (error) {
    return reportFailure(error, io);
  } finally {
    dropEarlyConnection();
    await standard?.drained();
  }
}

