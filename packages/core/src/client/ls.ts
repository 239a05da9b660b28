// `ptydeck ls`: every session of the running host, as a table or as JSON.
import type { CliIo } from './cli-io.js';
import { hostSnapshot } from './host-snapshot.js';
import { terminalSafeJson } from '../common/printable.js';
import { formatTable, listEntry } from './session-list.js';
import { EXIT_OK } from '../common/exit-codes.js';
import { homeDirectory } from '../common/home-dir.js';

/** `ptydeck ls`: every session of the running ptydeck, as a table or (--json) an array. */
export async function runLs(command: { json: boolean }, io: CliIo): Promise<number> {
  const { sessions, agents } = (await hostSnapshot('ptydeck ls')).snapshot;
  const entries = sessions.map((info) => listEntry(info, agents));
  io.stdout.write(command.json ? `${terminalSafeJson(entries)}\n` : formatTable(entries, Date.now(), homeDirectory()));
  return EXIT_OK;
}
