// The remotes the developer named (`ptydeck remote add`), kept in remotes.json in ptydeck's config directory.
import { chmodSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { parseJsonAs } from '@ptydeck/contract';
import { readUntrustedFileSync } from '../common/untrusted-read.js';
import { destinationProblem, NAME_PATTERN, nameProblem } from './remote-names.js';

export const REMOTES_FILE = 'remotes.json';
/** Far more than any developer's list of remotes: a larger file is not one `remote add` wrote. */
export const MAX_REMOTES_FILE_BYTES = 64 * 1024;

const Remote = z.strictObject({
  destination: z.string().refine((d) => destinationProblem(d) === undefined, { message: 'not a destination ssh can be given' }),
});
const RemotesFile = z.strictObject({
  remotes: z.record(z.string().regex(NAME_PATTERN), Remote),
});

export interface RemoteEntry {
  name: string;
  destination: string;
}

/** A remotes.json that cannot be used: the message names the file and what is wrong. */
export class RemotesConfigError extends Error {
  override readonly name = 'RemotesConfigError';
}

/**
 * The remotes in `configDir`, sorted by name; none when the file does not
 * exist. Throws RemotesConfigError on a bad file. The config directory is
 * one an agent's shell can write, so the file is untrusted input, read as
 * agents' files are: a regular file (no link, FIFO or device), size-capped,
 * every entry checked by the schema (a destination ssh would misread is
 * refused here, not only by `remote add`).
 */
export function readRemotes(configDir: string): RemoteEntry[] {
  const path = join(configDir, REMOTES_FILE);
  let text: string;
  try {
    const bytes = readUntrustedFileSync(path, MAX_REMOTES_FILE_BYTES);
    if (bytes === undefined) return [];
    text = bytes.toString('utf8');
  } catch (error) {
    throw new RemotesConfigError(`${path}: cannot read the file (${(error as Error).message})`);
  }
  const checked = parseJsonAs(RemotesFile, text);
  if (!checked.ok) throw new RemotesConfigError(`${path}: ${checked.json ? '' : 'not valid JSON: '}${checked.error}`);
  return Object.entries(checked.value.remotes)
    .map(([name, remote]) => ({ name, destination: remote.destination }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The remote called `name`, or a RemotesConfigError that lists the ones there are. */
export function findRemote(configDir: string, name: string): RemoteEntry {
  const remotes = readRemotes(configDir);
  const found = remotes.find((remote) => remote.name === name);
  if (found) return found;
  const known = remotes.length === 0 ? 'none is configured' : `known: ${remotes.map((r) => r.name).join(', ')}`;
  throw new RemotesConfigError(`no remote named '${name}' (${known}); add it with \`ptydeck remote add ${name} user@host\``);
}

/** Adds or replaces a remote. Throws RemotesConfigError on an unusable name or destination. */
export function addRemote(configDir: string, entry: RemoteEntry): void {
  const nameIssue = nameProblem(entry.name);
  if (nameIssue) throw new RemotesConfigError(`cannot use '${entry.name}' as a remote name: ${nameIssue}`);
  const destinationIssue = destinationProblem(entry.destination);
  if (destinationIssue) throw new RemotesConfigError(`cannot use '${entry.destination}' as an ssh destination: ${destinationIssue}`);
  const remotes = readRemotes(configDir).filter((remote) => remote.name !== entry.name);
  writeRemotes(configDir, [...remotes, entry]);
}

/** Removes a remote; false when there was none by that name. */
export function removeRemote(configDir: string, name: string): boolean {
  const remotes = readRemotes(configDir);
  const kept = remotes.filter((remote) => remote.name !== name);
  if (kept.length === remotes.length) return false;
  writeRemotes(configDir, kept);
  return true;
}

function writeRemotes(configDir: string, remotes: RemoteEntry[]): void {
  mkdirSync(configDir, { recursive: true, mode: 0o700 });
  const path = join(configDir, REMOTES_FILE);
  const file = { remotes: Object.fromEntries(remotes.sort((a, b) => a.name.localeCompare(b.name)).map((r) => [r.name, { destination: r.destination }])) };
  // Written whole and renamed, so a reader never sees half a file.
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, path);
}
