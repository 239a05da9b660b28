import { spawn } from 'node:child_process';
import { readlinkSync, symlinkSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { processIdentity } from './process-identity.js';
import { acquireHostLock, hostLockHolder, hostLockPath } from './host-lock.js';
import { fileTempDir } from '../testing/isolated-env.js';

const dir = () => fileTempDir('ptydeck-lock-');

/** The identity of a process that has exited: what a SIGKILLed host leaves in its lock. */
function deadIdentity(): Promise<string> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', '']);
    child.once('exit', () => resolve(`${child.pid}:1`));
  });
}

describe('host lock', () => {
  it('is taken once: a second taker learns the holder; released, it can be taken again', () => {
    const stateDir = dir();
    const first = acquireHostLock(stateDir);
    expect(first).toMatchObject({ acquired: true, identity: processIdentity() });
    expect(acquireHostLock(stateDir)).toEqual({ acquired: false, holder: { identity: processIdentity(), pid: process.pid } });
    expect(hostLockHolder(stateDir)).toEqual({ identity: processIdentity(), pid: process.pid });
    if (first.acquired) first.release();
    expect(hostLockHolder(stateDir)).toBeUndefined();
    expect(acquireHostLock(stateDir).acquired).toBe(true);
  });

  it('a pid that was reused does not hold it: the start time must match too', () => {
    const stateDir = dir();
    symlinkSync(`${process.pid}:1`, hostLockPath(stateDir));
    expect(hostLockHolder(stateDir)).toBeUndefined();
    expect(acquireHostLock(stateDir).acquired).toBe(true);
  });

  it("a dead holder's lock is taken over at once, and a dead claimant's claim too", async () => {
    const stateDir = dir();
    const dead = await deadIdentity();
    symlinkSync(dead, hostLockPath(stateDir));
    // A starter that claimed the stale lock and died before removing it.
    symlinkSync(await deadIdentity(), `${hostLockPath(stateDir)}.broken.${dead}`);
    expect(acquireHostLock(stateDir)).toMatchObject({ acquired: true });
    expect(readlinkSync(hostLockPath(stateDir))).toBe(processIdentity());
  });

  it('a stale lock another live starter has claimed is left to it', async () => {
    const stateDir = dir();
    const dead = await deadIdentity();
    symlinkSync(dead, hostLockPath(stateDir));
    symlinkSync(processIdentity(), `${hostLockPath(stateDir)}.broken.${dead}`);
    // The claimant (here: alive, but never finishing) keeps it; the taker gives up after its short retry.
    expect(acquireHostLock(stateDir)).toMatchObject({ acquired: false, holder: { identity: dead } });
  });
});
