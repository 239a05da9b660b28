import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeResolved } from './write-target.js';
import { fileTempDir } from '../testing/isolated-env.js';

let dir: string;
let outside: string;

beforeAll(() => {
  dir = fileTempDir('ptydeck-write-target-');
  outside = fileTempDir('ptydeck-write-target-outside-');
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe('writeResolved', () => {
  it('makes the missing directories and replaces what the file held', async () => {
    await writeResolved(join(dir, 'a', 'b', 'c.txt'), 'first, and longer');
    await writeResolved(join(dir, 'a', 'b', 'c.txt'), 'second');
    expect(readFileSync(join(dir, 'a', 'b', 'c.txt'), 'utf8')).toBe('second');
  });

  it('follows no link in any part of the path', async () => {
    mkdirSync(join(dir, 'real'));
    symlinkSync(outside, join(dir, 'real', 'away'));
    symlinkSync(join(outside, 'file.txt'), join(dir, 'real', 'file-link'));
    await expect(writeResolved(join(dir, 'real', 'away', 'x.txt'), 'x')).rejects.toThrow("'away' is a symbolic link or not a directory");
    await expect(writeResolved(join(dir, 'real', 'away', 'new', 'x.txt'), 'x')).rejects.toThrow('symbolic link');
    await expect(writeResolved(join(dir, 'real', 'file-link'), 'x')).rejects.toThrow();
    expect(readdirSync(outside)).toEqual([]);
  });

  it.runIf(spawnSync('mkfifo', ['--help']).status === 0)('refuses a FIFO planted under the name instead of waiting for a reader', async () => {
    const fifo = join(dir, 'fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    await expect(writeResolved(fifo, 'x')).rejects.toThrow();
  });

  it('refuses a name that is a directory', async () => {
    writeFileSync(join(dir, 'plain.txt'), 'kept');
    await expect(writeResolved(dir, 'x')).rejects.toThrow();
    expect(readFileSync(join(dir, 'plain.txt'), 'utf8')).toBe('kept');
  });
});
