// The host lock: exactly one host per state directory, and a lock left by a dead host taken over at once.
import { lstatSync, mkdirSync, readdirSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { identityAlive, identityPid, processIdentity } from './process-identity.js';

/**
 * Exactly one host per state directory. The lock is a symbolic link,
 * `host.lock` -> `<pid>:<start time>` of the host holding it: creating a link is
 * atomic and fails if one exists, and it carries its value from the first
 * instant (a lock file written after an O_EXCL create could be seen empty, or
 * stay empty forever if its writer died in between). Whether the holder lives
 * is asked of the kernel at once, so a lock left by a killed host is taken
 * over on the spot and never waited on.
 *
 * Taking over is where two starters could collide: both see the dead holder,
 * one replaces the lock, the other removes the new one. So the stale value V is
 * claimed first, by creating `host.lock.broken.V` (itself a lock: a link to the
 * claimant's identity): only its creator removes `host.lock`, and since V
 * can never be written again, what it removes is V. Claims are left in place
 * (removing one would let a starter that read V long ago claim it again and
 * remove a newer lock); claims older than an hour are swept.
 */
const LOCK_NAME = 'host.lock';
const CLAIM_INFIX = '.broken.';
/** A starter delayed this long between reading a stale lock and claiming it is not worth guarding against. */
const CLAIM_SWEEP_AGE_MS = 60 * 60 * 1000;
/** How long to retry while another starter is taking over a stale lock. */
const CONTENDED_RETRY_MS = 2000;

export type HostLock =
  | { acquired: true; identity: string; release(): void }
  | { acquired: false; holder: { identity: string; pid: number | undefined } };

export function hostLockPath(stateDir: string): string {
  return join(stateDir, LOCK_NAME);
}

/** The live holder of the state directory's host lock, or undefined when none holds it. */
export function hostLockHolder(stateDir: string): { identity: string; pid: number | undefined } | undefined {
  const identity = readLink(hostLockPath(stateDir));
  return identity !== undefined && identityAlive(identity) ? { identity, pid: identityPid(identity) } : undefined;
}

/**
 * Takes the host lock for this process, or names the live process holding it.
 * The caller has checked that the state directory is private.
 */
export function acquireHostLock(stateDir: string): HostLock {
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const path = hostLockPath(stateDir);
  const identity = processIdentity();
  const giveUpAt = Date.now() + CONTENDED_RETRY_MS;
  for (;;) {
    if (createLink(identity, path)) {
      sweepOldClaims(stateDir);
      return { acquired: true, identity, release: () => releaseLock(path, identity) };
    }
    const holder = readLink(path);
    if (holder === undefined) continue; // released between our attempt and our look
    if (identityAlive(holder)) return { acquired: false, holder: { identity: holder, pid: identityPid(holder) } };
    if (takeOver(path, holder, identity)) continue;
    // Another starter is taking over this stale lock: it removes the lock in a moment.
    if (Date.now() > giveUpAt) return { acquired: false, holder: { identity: holder, pid: identityPid(holder) } };
    pause(5);
  }
}

/**
 * Removes the stale lock at `path` (value `stale`) if this process wins the
 * claim on that value. Answers whether the caller should simply try again.
 */
function takeOver(path: string, stale: string, identity: string): boolean {
  const claim = `${path}${CLAIM_INFIX}${stale}`;
  if (!createLink(identity, claim)) {
    const claimant = readLink(claim);
    if (claimant === undefined) return true;
    if (identityAlive(claimant)) return false;
    // The claimant died between its claim and its removal: its claim is a stale lock like any other.
    takeOver(claim, claimant, identity);
    return true;
  }
  rmSync(path, { force: true });
  return true;
}

function releaseLock(path: string, identity: string): void {
  // Only our own lock: a lock that says someone else is theirs to release.
  if (readLink(path) === identity) rmSync(path, { force: true });
}

function createLink(value: string, path: string): boolean {
  try {
    symlinkSync(value, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

function readLink(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    // Not a link (a file someone put there): no host holds it, and the caller cannot take it.
    if (code === 'EINVAL') throw new Error(`${path} is not a ptydeck host lock (not a symbolic link); remove it`);
    throw error;
  }
}

function sweepOldClaims(stateDir: string): void {
  const now = Date.now();
  for (const name of readdirSync(stateDir)) {
    if (!name.startsWith(LOCK_NAME + CLAIM_INFIX)) continue;
    const path = join(stateDir, name);
    try {
      if (now - lstatSync(path).mtimeMs > CLAIM_SWEEP_AGE_MS) rmSync(path, { force: true });
    } catch {
      // Swept by another host at the same moment.
    }
  }
}

/** A short synchronous pause: the lock is taken once, at start, before the host serves anything. */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
