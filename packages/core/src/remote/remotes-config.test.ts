import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { addRemote, findRemote, MAX_REMOTES_FILE_BYTES, readRemotes, removeRemote, REMOTES_FILE } from './remotes-config.js';
import { destinationProblem } from './remote-names.js';
import { fileTempDir } from '../testing/isolated-env.js';

const dirs: string[] = [];
const configDir = () => {
  const dir = fileTempDir('ptydeck-remotes-');
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
    expect(destinationProblem('me@[::1]')).toBeUndefined();
    expect(destinationProblem('me_2@box-1.example.com')).toBeUndefined();
    for (const injected of ['box$(touch${IFS}/tmp/p)', 'box`id`', 'box;id', 'box|id', "box'x", 'box&id', 'box>f', 'a\\b']) {
      expect(destinationProblem(injected), injected).toMatch(/a shell reads/);
    }
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

  it('reads the file as untrusted input: an agent that replaced it with a FIFO, a link to /dev/zero, a huge file or a disguised destination gets a refusal, not a hang or a remote', () => {
    const dir = configDir();
    addRemote(dir, { name: 'ok', destination: 'box' });
    const path = join(dir, REMOTES_FILE);
    rmSync(path);
    expect(spawnSync('mkfifo', [path]).status).toBe(0);
    expect(() => readRemotes(dir)).toThrow(/remotes\.json: .*not a regular file/);
    rmSync(path);
    symlinkSync('/dev/zero', path);
    expect(() => readRemotes(dir)).toThrow(/remotes\.json: .*symbolic link/);
    rmSync(path);
    writeFileSync(path, JSON.stringify({ remotes: { ok: { destination: 'box' } }, pad: 'x'.repeat(MAX_REMOTES_FILE_BYTES) }));
    expect(() => readRemotes(dir)).toThrow(/remotes\.json: .*more than/);
    // A right-to-left override shows another host than the one ssh is given; a C1 control can drive a terminal.
    for (const destination of ['box\u202e', 'box\u0085x', 'box\u200bx']) {
      writeFileSync(path, JSON.stringify({ remotes: { ok: { destination } } }));
      expect(() => readRemotes(dir), destination).toThrow(/not a destination ssh can be given/);
      expect(() => addRemote(dir, { name: 'x', destination })).toThrow(/character/);
    }
  });
});
