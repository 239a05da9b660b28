import { mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { readDiscovery, removeDiscovery, resolveStateDir, writeDiscovery } from './discovery.js';

const dir = () => mkdtempSync(join(tmpdir(), 'ptydeck-discovery-'));
const record = (pid = process.pid, instance = 'a') => ({ url: 'http://127.0.0.1:1234', token: 't'.repeat(43), pid, instance });

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

  it('is reported stale when its pid is dead', () => {
    const stateDir = dir();
    const dead = spawnSync(process.execPath, ['-e', 'process.exit(0)']).pid!;
    writeDiscovery(record(dead), stateDir);
    expect(readDiscovery(stateDir).status).toBe('stale');
  });

  it('reports missing and invalid files', () => {
    const stateDir = dir();
    expect(readDiscovery(stateDir).status).toBe('missing');
    writeFileSync(join(stateDir, 'server.json'), '{"url": 1}');
    expect(readDiscovery(stateDir).status).toBe('invalid');
    writeFileSync(join(stateDir, 'server.json'), 'not json');
    expect(readDiscovery(stateDir).status).toBe('invalid');
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
