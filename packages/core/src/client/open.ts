// `ptydeck` with no command: make sure the host runs, then print a one-time panel link.
import type { CliIo } from './cli-io.js';
import { ensureHost } from './ensure-host.js';
import { freshPanelLink } from './url.js';
import { styleFor } from './style.js';
import { EXIT_OK } from '../common/exit-codes.js';

/**
 * `ptydeck` with no command: make sure the host runs (starting it detached),
 * then print a one-time panel link, asked of the host as `ptydeck url` does:
 * the host hands it only to a process outside every session.
 */
export async function runOpen(io: CliIo): Promise<number> {
  const { record, started } = await ensureHost({ log: (line) => io.stderr.write(`${line}\n`), quietStart: true });
  const style = styleFor(io.stdout);
  const answer = await freshPanelLink();
  io.stdout.write(`${style.bold('ptydeck')} ${started ? 'started' : 'is running'} at ${record.url} (pid ${record.pid})\n`);
  if ('url' in answer) io.stdout.write(`Open the panel (one-time link): ${style.cyan(answer.url)}\n`);
  else io.stdout.write(`This system cannot tell ptydeck who is asking, so the link is in ${answer.shownIn}\n`);
  io.stdout.write(style.dim('The host keeps running when you close the panel; `ptydeck stop` ends it.\n'));
  return EXIT_OK;
}
