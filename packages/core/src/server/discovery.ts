import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';

/** What a running ptydeck publishes so `ptydeck mcp` and agents can find it. */
export const DiscoveryRecord = z.object({
  url: z.string().url(),
  token: z.string().min(1),
  pid: z.number().int().positive(),
  instance: z.string().min(1),
});
export type DiscoveryRecord = z.infer<typeof DiscoveryRecord>;

const DISCOVERY_FILE = 'server.json';

/** $PTYDECK_STATE_DIR, else $XDG_STATE_HOME/ptydeck, else ~/.local/state/ptydeck. Empty values count as unset. */
export function resolveStateDir(env: Record<string, string | undefined> = process.env): string {
  if (env.PTYDECK_STATE_DIR) return env.PTYDECK_STATE_DIR;
  if (env.XDG_STATE_HOME) return join(env.XDG_STATE_HOME, 'ptydeck');
  return join(env.HOME || homedir(), '.local', 'state', 'ptydeck');
}

export function discoveryPath(stateDir: string = resolveStateDir()): string {
  return join(stateDir, DISCOVERY_FILE);
}

/**
 * Writes the record with mode 0600 through a temporary file and a rename, so a
 * reader never sees half a file and the token is never readable by others,
 * not even for the instant between create and chmod.
 */
export function writeDiscovery(record: DiscoveryRecord, stateDir: string = resolveStateDir()): string {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const target = discoveryPath(stateDir);
  const temp = join(stateDir, `.${DISCOVERY_FILE}.${process.pid}.${randomBytes(4).toString('hex')}`);
  try {
    writeFileSync(temp, JSON.stringify(record, null, 2) + '\n', { mode: 0o600, flag: 'wx' });
    renameSync(temp, target);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  return target;
}

export type DiscoveryLookup =
  | { status: 'live'; record: DiscoveryRecord; path: string }
  | { status: 'stale'; record: DiscoveryRecord; path: string }
  | { status: 'missing'; path: string }
  | { status: 'invalid'; path: string; reason: string };

/** Reads the discovery file and says whether the process it names is still alive. */
export function readDiscovery(stateDir: string = resolveStateDir()): DiscoveryLookup {
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
  const parsed = DiscoveryRecord.safeParse(json);
  if (!parsed.success) return { status: 'invalid', path, reason: parsed.error.issues[0]?.message ?? 'bad shape' };
  return { status: isProcessAlive(parsed.data.pid) ? 'live' : 'stale', record: parsed.data, path };
}

/**
 * Removes the discovery file only if it still names this instance: a newer
 * ptydeck that replaced a stale file must not lose its own record.
 */
export function removeDiscovery(instance: string, stateDir: string = resolveStateDir()): void {
  const found = readDiscovery(stateDir);
  if (found.status === 'missing') return;
  if (found.status !== 'invalid' && found.record.instance !== instance) return;
  if (found.status === 'invalid') return;
  rmSync(found.path, { force: true });
}

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
