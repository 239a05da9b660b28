import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { assertPrivateState, parseDiscoveryRecord, readDiscovery, removeDiscovery, resolveStateDir, UnsafeStateError, writeDiscovery } from './discovery.js';
import { fileTempDir } from '../testing/isolated-env.js';

const dir = () => fileTempDir('ptydeck-discovery-');
const record = (pid = process.pid, instance = 'a') => ({ url: 'http://127.0.0.1:1234', token: 't'.repeat(43), pid, instance, protocol: 1 });

describe('resolveStateDir', () => {
  it('prefers PTYDECK_STATE_DIR, then XDG_STATE_HOME/ptydeck, then ~/.local/state/ptydeck', () => {
    expect(resolveStateDir({ PTYDECK_STATE_DIR: '/s', XDG_STATE_HOME: '/x', HOME: '/h' })).toBe('/s');
    expect(resolveStateDir({ XDG_STATE_HOME: '/x', HOME: '/h' })).toBe('/x/ptydeck');
    expect(resolveStateDir({ PTYDECK_STATE_DIR: '', XDG_STATE_HOME: '', HOME: '/h' })).toBe('/h/.local/state/ptydeck');
  });
});

describe('discovery file', () => {
  it('is written atomically with mode 0600, leaving no temporary file', () => {
    const stateDir = join(dir(), 'nested', 'state');
    const path = writeDiscovery(record(), stateDir);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(stateDir)).toEqual(['server.json']);
    expect(readDiscovery(stateDir)).toEqual({ status: 'live', record: record(), path });
  });

  it('reads a file from before the host protocol as protocol 0', () => {
    const stateDir = dir();
    const { protocol: _dropped, ...old } = record();
    writeDiscovery(old, stateDir);
    expect(readDiscovery(stateDir)).toMatchObject({ status: 'live', record: { ...old, protocol: 0 } });
  });

  it('is reported stale when its pid is dead', () => {
    const stateDir = dir();
    const dead = spawnSync(process.execPath, ['-e', 'process.exit(0)']).pid!;
    writeDiscovery(record(dead), stateDir);
    expect(readDiscovery(stateDir).status).toBe('stale');
  });

  it('reports missing and invalid files', () => {
    const stateDir = dir();
    expect(readDiscovery(stateDir).status).toBe('missing');
    writeFileSync(join(stateDir, 'server.json'), '{"url": 1}', { mode: 0o600 });
    expect(readDiscovery(stateDir).status).toBe('invalid');
    writeFileSync(join(stateDir, 'server.json'), 'not json', { mode: 0o600 });
    expect(readDiscovery(stateDir).status).toBe('invalid');
  });

  it('takes only a whole record of the right types, keeping nothing else a writer put there', () => {
    const good = record();
    expect(parseDiscoveryRecord({ ...good, extra: 'planted' })).toEqual({ ok: true, record: good });
    const wrong: Array<[string, unknown]> = [
      ['url', 'ftp://127.0.0.1:1'],
      ['url', 'not a url'],
      ['url', undefined],
      ['token', ''],
      ['pid', 0],
      ['pid', 1.5],
      ['pid', '42'],
      ['instance', ''],
      ['protocol', -1],
      ['protocol', '1'],
    ];
    for (const [key, value] of wrong) {
      const checked = parseDiscoveryRecord({ ...good, [key]: value });
      expect(checked, `${key} = ${JSON.stringify(value)}`).toMatchObject({ ok: false, reason: expect.stringMatching(new RegExp(`^${key}: `)) });
    }
    expect(parseDiscoveryRecord([good])).toEqual({ ok: false, reason: 'not a JSON object' });
  });

  it('is removed only by the instance that wrote it', () => {
    const stateDir = dir();
    writeDiscovery(record(process.pid, 'newer'), stateDir);
    removeDiscovery('older', stateDir);
    expect(readDiscovery(stateDir).status).toBe('live');
    removeDiscovery('newer', stateDir);
    expect(readDiscovery(stateDir).status).toBe('missing');
  });
});

describe('a private state directory', () => {
  it('is created 0700, every level ptydeck makes', () => {
    const root = dir();
    writeDiscovery(record(), join(root, 'made', 'state'));
    expect(statSync(join(root, 'made')).mode & 0o777).toBe(0o700);
    expect(statSync(join(root, 'made', 'state')).mode & 0o777).toBe(0o700);
  });

  it('refuses a state directory others can write (0777, 0775), naming the path and the fix, for writing and reading', () => {
    for (const mode of [0o777, 0o775]) {
      const stateDir = dir();
      chmodSync(stateDir, mode);
      const expected = new RegExp(`state directory ${stateDir} is writable by other users \\(mode 0${mode.toString(8)}\\).*chmod 700 ${stateDir}`);
      expect(() => writeDiscovery(record(), stateDir)).toThrow(expected);
      expect(() => writeDiscovery(record(), stateDir)).toThrow(UnsafeStateError);
      expect(existsSync(join(stateDir, 'server.json'))).toBe(false);
      // A record planted there (by whoever could write it) is not followed.
      writeFileSync(join(stateDir, 'server.json'), JSON.stringify(record()), { mode: 0o600 });
      expect(() => readDiscovery(stateDir)).toThrow(expected);
      chmodSync(stateDir, 0o700);
      expect(readDiscovery(stateDir).status).toBe('live');
    }
  });

  it('accepts a 0755 state directory: others may list it, but server.json is 0600', () => {
    const stateDir = dir();
    chmodSync(stateDir, 0o755);
    const path = writeDiscovery(record(), stateDir);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readDiscovery(stateDir).status).toBe('live');
  });

  it('refuses a server.json others can read or write; writing a new one replaces it 0600', () => {
    for (const mode of [0o644, 0o660, 0o602]) {
      const stateDir = dir();
      const path = join(stateDir, 'server.json');
      writeFileSync(path, JSON.stringify(record()), { mode: 0o600 });
      chmodSync(path, mode);
      expect(() => readDiscovery(stateDir)).toThrow(new RegExp(`${path} is open to other users \\(mode 0${mode.toString(8)}\\).*chmod 600 ${path}`));
      writeDiscovery(record(), stateDir);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(readDiscovery(stateDir).status).toBe('live');
    }
  });

  it('refuses a state directory or server.json that belongs to another user', () => {
    const uid = process.getuid!();
    const stateDir = dir();
    if (uid !== 0) {
      // Not root: nothing can be handed to another user, so ask as one.
      expect(() => assertPrivateState(stateDir, uid + 1)).toThrow(/state directory .* belongs to another user .*PTYDECK_STATE_DIR/);
      return;
    }
    // Root: hand the paths to nobody.
    const nobody = 65534;
    chownSync(stateDir, nobody, nobody);
    expect(() => readDiscovery(stateDir)).toThrow(new RegExp(`state directory ${stateDir} belongs to another user \\(uid ${nobody}; you are uid 0\\).*PTYDECK_STATE_DIR`));
    expect(() => writeDiscovery(record(), stateDir)).toThrow(UnsafeStateError);
    const mine = dir();
    const path = writeDiscovery(record(), mine);
    chownSync(path, nobody, nobody);
    expect(() => readDiscovery(mine)).toThrow(new RegExp(`discovery file ${path} belongs to another user`));
  });

  it('passes a directory that does not exist yet: the writer creates it 0700', () => {
    const missing = join(dir(), 'not-yet');
    expect(() => assertPrivateState(missing)).not.toThrow();
    expect(readDiscovery(missing).status).toBe('missing');
    mkdirSync(missing, { mode: 0o700 });
    expect(readDiscovery(missing).status).toBe('missing');
  });
});
