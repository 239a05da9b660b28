// The discovery file (server.json) through which clients and agents find the running host.
import { lstatSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertPrivateDir, checkOwner, octal, shellQuote, statOrUndefined, UnsafeStateError } from './private-paths.js';
import { isProcessAlive } from './process-identity.js';
import { randomHex } from './random-hex.js';
import { homeDirectory } from './home-dir.js';

export { UnsafeStateError };

/** What a running ptydeck publishes so `ptydeck mcp` and agents can find it. */
export interface DiscoveryRecord {
  /** The host's http:// address. */
  url: string;
  token: string;
  pid: number;
  instance: string;
  /** HOST_PROTOCOL_VERSION of the host that wrote it; a file from before there was one says nothing, read as 0. */
  protocol: number;
}

/**
 * server.json's JSON as a record, or what is wrong with it. Written by hand
 * rather than as a zod schema: every client (`ptydeck ls`, `url`, `attach`,
 * `mcp`) reads this file first, and zod was a third of such a start (bench
 * figure 12). Anything an agent's shell could write reaches here: every field
 * is checked, and only the record's own fields are kept.
 */
export function parseDiscoveryRecord(value: unknown): { ok: true; record: DiscoveryRecord } | { ok: false; reason: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, reason: 'not a JSON object' };
  const { url, token, pid, instance, protocol = 0 } = value as Record<string, unknown>;
  if (typeof url !== 'string' || !isHttpUrl(url)) return { ok: false, reason: 'url: not an http:// URL' };
  if (typeof token !== 'string' || token.length === 0) return { ok: false, reason: 'token: not a non-empty string' };
  if (!Number.isSafeInteger(pid) || (pid as number) <= 0) return { ok: false, reason: 'pid: not a positive integer' };
  if (typeof instance !== 'string' || instance.length === 0) return { ok: false, reason: 'instance: not a non-empty string' };
  if (!Number.isSafeInteger(protocol) || (protocol as number) < 0) return { ok: false, reason: 'protocol: not a non-negative integer' };
  return { ok: true, record: { url, token, pid: pid as number, instance, protocol: protocol as number } };
}

function isHttpUrl(text: string): boolean {
  try {
    return new URL(text).protocol === 'http:';
  } catch {
    return false;
  }
}

export const DISCOVERY_FILE = 'server.json';

/** $PTYDECK_STATE_DIR, else $XDG_STATE_HOME/ptydeck, else ~/.local/state/ptydeck. Empty values count as unset. */
export function resolveStateDir(env: Record<string, string | undefined> = process.env): string {
  if (env.PTYDECK_STATE_DIR) return env.PTYDECK_STATE_DIR;
  if (env.XDG_STATE_HOME) return join(env.XDG_STATE_HOME, 'ptydeck');
  return join(homeDirectory(env), '.local', 'state', 'ptydeck');
}

export function discoveryPath(stateDir: string = resolveStateDir()): string {
  return join(stateDir, DISCOVERY_FILE);
}

/**
 * Refuses a state directory other users could write, and a discovery file
 * other users could read or write, as ssh refuses lax permissions: whoever
 * can replace server.json points every agent at a server of their own (and
 * receives what the agents type), and whoever can read it holds the token.
 * A directory others may only read and list (0755) is accepted: server.json
 * itself is 0600. Both must belong to this user or to root. Missing paths pass:
 * the writer creates the directory 0700. Not checked on Windows, where mode
 * bits mean nothing (the directory sits in the user's profile).
 */
export function assertPrivateState(stateDir: string, uid: number | undefined = process.getuid?.()): void {
  assertPrivateStateDir(stateDir, uid);
  if (uid === undefined) return;
  const file = discoveryPath(stateDir);
  const record = statOrUndefined(() => lstatSync(file));
  if (!record) return;
  if (!record.isFile()) throw new UnsafeStateError(file, `${file} is not a regular file; remove it (ptydeck writes a new one at start)`);
  checkOwner(file, record, uid, 'discovery file');
  if ((record.mode & 0o077) !== 0) {
    throw new UnsafeStateError(
      file,
      `${file} is open to other users (mode ${octal(record.mode)}): it holds ptydeck's token. Fix it with: chmod 600 ${shellQuote(file)}`,
    );
  }
}

/** The directory's half of assertPrivateState: owned by this user or root, writable by nobody else. */
function assertPrivateStateDir(stateDir: string, uid: number | undefined): void {
  assertPrivateDir(stateDir, uid, {
    what: 'state directory',
    risk: 'anyone could replace server.json and send your agents to their own server',
  });
}

/**
 * Writes the record with mode 0600 through a temporary file and a rename, so a
 * reader never sees half a file and the token is never readable by others,
 * not even for the instant between create and chmod. A directory it creates
 * is 0700; an existing one must pass assertPrivateState.
 */
export function writeDiscovery(record: Omit<DiscoveryRecord, 'protocol'> & { protocol?: number }, stateDir: string = resolveStateDir()): string {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  // The file is about to be replaced, so only the directory's own safety matters here.
  assertPrivateStateDir(stateDir, process.getuid?.());
  const target = discoveryPath(stateDir);
  const temp = join(stateDir, `.${DISCOVERY_FILE}.${process.pid}.${randomHex(4)}`);
  try {
    writeFileSync(temp, discoveryText(record), { mode: 0o600, flag: 'wx' });
    renameSync(temp, target);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  return target;
}

/**
 * The host's route that writes its own record back to server.json (host/record-route.ts): POST, no credential, no
 * body. A client asks the live holder of host.lock, found through the kernel, when server.json does not lead to it.
 */
export const RECORD_PATH = '/record';

/** server.json's text for `record`, as writeDiscovery writes it (host/record-route.ts compares the file with it). */
export function discoveryText(record: Omit<DiscoveryRecord, 'protocol'> & { protocol?: number }): string {
  return JSON.stringify(record, null, 2) + '\n';
}

export type DiscoveryLookup =
  | { status: 'live'; record: DiscoveryRecord; path: string }
  | { status: 'stale'; record: DiscoveryRecord; path: string }
  | { status: 'missing'; path: string }
  | { status: 'invalid'; path: string; reason: string };

/**
 * Reads the discovery file and says whether the process it names is still
 * alive. Throws UnsafeStateError when others could have written or read it
 * (assertPrivateState): a planted record must not be followed.
 */
export function readDiscovery(stateDir: string = resolveStateDir()): DiscoveryLookup {
  assertPrivateState(stateDir);
  return lookupDiscovery(stateDir);
}

function lookupDiscovery(stateDir: string): DiscoveryLookup {
  const path = discoveryPath(stateDir);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { status: 'missing', path };
    return { status: 'invalid', path, reason: (error as Error).message };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { status: 'invalid', path, reason: 'not JSON' };
  }
  const checked = parseDiscoveryRecord(json);
  if (!checked.ok) return { status: 'invalid', path, reason: checked.reason };
  return { status: isProcessAlive(checked.record.pid) ? 'live' : 'stale', record: checked.record, path };
}

/**
 * Removes the discovery file only if it still names this instance: a newer
 * ptydeck that replaced a stale file must not lose its own record.
 */
export function removeDiscovery(instance: string, stateDir: string = resolveStateDir()): void {
  // Only compared, never followed: no permission check, so shutting down never fails on one.
  const found = lookupDiscovery(stateDir);
  if (found.status === 'missing') return;
  if (found.status !== 'invalid' && found.record.instance !== instance) return;
  if (found.status === 'invalid') return;
  rmSync(found.path, { force: true });
}
