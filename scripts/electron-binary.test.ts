import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findElectronBinary } from './electron-binary.mjs';

let dir: string;
let packageDir: string;

function writeExecutable(path: string) {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, '#!/bin/sh\n');
  chmodSync(path, 0o755);
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ptydeck-electron-binary-'));
  packageDir = join(dir, 'node_modules', 'electron');
  mkdirSync(packageDir, { recursive: true });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('findElectronBinary', () => {
  it('reports a package whose download never ran (no path.txt) as missing, without downloading', () => {
    expect(findElectronBinary({ packageDir, env: {} })).toEqual({ found: false, reason: 'its download never completed, offline?' });
  });

  it('reports a path.txt whose executable is gone as missing', () => {
    writeFileSync(join(packageDir, 'path.txt'), 'electron');
    const result = findElectronBinary({ packageDir, env: {} });
    expect(result).toMatchObject({ found: false, reason: expect.stringContaining(join(packageDir, 'dist', 'electron')) });
  });

  it('finds the executable path.txt names inside dist/', () => {
    writeFileSync(join(packageDir, 'path.txt'), 'electron');
    writeExecutable(join(packageDir, 'dist', 'electron'));
    expect(findElectronBinary({ packageDir, env: {} })).toEqual({ found: true, path: join(packageDir, 'dist', 'electron') });
  });

  it('honours ELECTRON_OVERRIDE_DIST_PATH, as index.js does, with or without path.txt', () => {
    const local = join(dir, 'local-build');
    writeExecutable(join(local, 'electron'));
    expect(findElectronBinary({ packageDir, env: { ELECTRON_OVERRIDE_DIST_PATH: local } })).toEqual({
      found: true,
      path: join(local, 'electron'),
    });
    expect(findElectronBinary({ packageDir, env: { ELECTRON_OVERRIDE_DIST_PATH: join(dir, 'nowhere') } })).toMatchObject({
      found: false,
      reason: expect.stringContaining('ELECTRON_OVERRIDE_DIST_PATH'),
    });
  });

  it('reports an uninstalled electron package', () => {
    expect(findElectronBinary({ packageDir: null, env: {} })).toEqual({ found: false, reason: 'the electron package is not installed' });
  });
});
