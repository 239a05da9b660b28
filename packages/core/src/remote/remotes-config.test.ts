import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { addRemote, destinationProblem, findRemote, readRemotes, removeRemote, REMOTES_FILE } from './remotes-config.js';

const dirs: string[] = [];
const configDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'ptydeck-remotes-'));
  dirs.push(dir);
  return join(dir, 'config');
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('remotes.json', () => {
  it('adds, replaces, lists and removes remotes, in a file only the developer reads', () => {
    const dir = configDir();
    expect(readRemotes(dir)).toEqual([]);
    addRemote(dir, { name: 'gpu', destination: 'me@gpu-box' });
    addRemote(dir, { name: 'dev', destination: 'devbox' });
    addRemote(dir, { name: 'gpu', destination: 'me@gpu2' });
    expect(readRemotes(dir)).toEqual([
      { name: 'dev', destination: 'devbox' },
      { name: 'gpu', destination: 'me@gpu2' },
    ]);
    expect(statSync(join(dir, REMOTES_FILE)).mode & 0o777).toBe(0o600);
    expect(findRemote(dir, 'dev').destination).toBe('devbox');
    expect(() => findRemote(dir, 'nope')).toThrow("no remote named 'nope' (known: dev, gpu)");
    expect(removeRemote(dir, 'gpu')).toBe(true);
    expect(removeRemote(dir, 'gpu')).toBe(false);
    expect(readRemotes(dir)).toEqual([{ name: 'dev', destination: 'devbox' }]);
  });

  it('refuses destinations ssh would read as options, and names that need quoting', () => {
    const dir = configDir();
    expect(() => addRemote(dir, { name: 'x', destination: '-oProxyCommand=sh' })).toThrow("starts with '-'");
    expect(() => addRemote(dir, { name: 'x', destination: 'a b' })).toThrow('whitespace');
    expect(() => addRemote(dir, { name: '-x', destination: 'box' })).toThrow('remote name');
    expect(destinationProblem('user@host')).toBeUndefined();
    expect(destinationProblem('ssh://user@host:2222')).toBeUndefined();
  });

  it('refuses a file someone edited into something ssh would misread', () => {
    const dir = configDir();
    addRemote(dir, { name: 'ok', destination: 'box' });
    const path = join(dir, REMOTES_FILE);
    writeFileSync(path, JSON.stringify({ remotes: { ok: { destination: '-oProxyCommand=sh' } } }));
    expect(() => readRemotes(dir)).toThrow(/remotes\.json: .*not a destination ssh can be given/);
    writeFileSync(path, '{');
    expect(() => readRemotes(dir)).toThrow(/not valid JSON/);
    expect(readFileSync(path, 'utf8')).toBe('{');
  });
});
