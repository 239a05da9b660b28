import { spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { removeHostTempDir } from './host-temp-dirs.js';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

function root(): string {
  const made = mkdtempSync(join(tmpdir(), 'ptydeck-temp-dirs-test-'));
  roots.push(made);
  return made;
}

describe("removing a killed host's temporary directory", () => {
  it('removes the files named and the directory, and nothing through a link at its name', () => {
    const dir = root();
    const ours = join(dir, 'ptydeck-shell-1-1-abcdef');
    mkdirSync(ours);
    writeFileSync(join(ours, 'bashrc'), 'rc');
    removeHostTempDir(ours, ['bashrc']);
    expect(existsSync(ours)).toBe(false);
    const victim = join(dir, 'victim');
    mkdirSync(victim);
    writeFileSync(join(victim, 'bashrc'), 'mine');
    symlinkSync(victim, ours);
    removeHostTempDir(ours, ['bashrc']);
    expect(existsSync(join(victim, 'bashrc'))).toBe(true);
  });

  it('removes nothing through a link a shell swaps in for the directory as fast as the kernel does (renameat2 exchange)', async () => {
    const dir = root();
    const name = 'ptydeck-shell-1-1-abcdef';
    const victim = join(dir, 'victim');
    mkdirSync(victim);
    mkdirSync(join(dir, name));
    symlinkSync(victim, join(dir, 'other'));
    // The directory and a link to `victim` trade places until killed: looked at by path and then removed by path,
    // the removal went through the link about once in a hundred tries (`victim/bashrc` gone).
    const swapper = spawn('python3', ['-c', `import ctypes\nlibc = ctypes.CDLL(None)\nwhile True: libc.renameat2(-100, b'${name}', -100, b'other', 2)\n`], { cwd: dir, stdio: 'ignore' });
    const exited = new Promise((resolve) => swapper.once('exit', resolve));
    try {
      let lost = 0;
      for (let attempt = 0; attempt < 1500 && lost === 0; attempt++) {
        writeFileSync(join(victim, 'bashrc'), 'mine');
        removeHostTempDir(join(dir, name), ['bashrc']);
        if (!existsSync(join(victim, 'bashrc'))) lost++;
        // A directory removed when the swap did not fall between is made again, for the next try.
        for (const each of [name, 'other']) if (lstatSync(join(dir, each), { throwIfNoEntry: false }) === undefined) mkdirSync(join(dir, each));
      }
      expect(lost).toBe(0);
    } finally {
      swapper.kill();
      await exited;
    }
  });
});
