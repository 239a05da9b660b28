import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadAgentsConfig, resolveConfigDir } from './agents-config.js';
import { fileTempDir } from '../testing/isolated-env.js';

describe('resolveConfigDir', () => {
  it('prefers PTYDECK_CONFIG_DIR, then XDG_CONFIG_HOME, then HOME/.config', () => {
    expect(resolveConfigDir({ PTYDECK_CONFIG_DIR: '/a', XDG_CONFIG_HOME: '/b', HOME: '/c' })).toBe('/a');
    expect(resolveConfigDir({ PTYDECK_CONFIG_DIR: '', XDG_CONFIG_HOME: '/b', HOME: '/c' })).toBe('/b/ptydeck');
    expect(resolveConfigDir({ XDG_CONFIG_HOME: '', HOME: '/c' })).toBe('/c/.config/ptydeck');
  });
});

describe('loadAgentsConfig', () => {
  let dir: string;
  beforeEach(() => {
    dir = fileTempDir('ptydeck-agents-config-');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const write = (text: string) => writeFileSync(join(dir, 'agents.json'), text);

  it('gives an empty list when the file or the directory is missing', async () => {
    expect(await loadAgentsConfig(dir)).toEqual({ ok: true, path: join(dir, 'agents.json'), agents: [] });
    expect(await loadAgentsConfig(join(dir, 'absent'))).toMatchObject({ ok: true, agents: [] });
  });

  it('reads agents, defaulting args and env', async () => {
    write(JSON.stringify({ agents: [{ name: 'gemini', command: 'gemini', args: ['--experimental-acp'], env: { A: '1' } }, { name: 'x', command: '/bin/x' }] }));
    expect(await loadAgentsConfig(dir)).toEqual({
      ok: true,
      path: join(dir, 'agents.json'),
      agents: [
        { name: 'gemini', command: 'gemini', args: ['--experimental-acp'], env: { A: '1' } },
        { name: 'x', command: '/bin/x', args: [], env: {} },
      ],
    });
  });

  it('reports malformed JSON naming the file', async () => {
    write('{"agents": [');
    const load = await loadAgentsConfig(dir);
    expect(load.ok).toBe(false);
    if (!load.ok) expect(load.error).toMatch(new RegExp(`^${join(dir, 'agents.json')}: not valid JSON`));
  });

  it('reports where a field is wrong and what is wrong with it', async () => {
    write(JSON.stringify({ agents: [{ name: 'a', command: 'a' }, { name: 'b', args: 'x' }] }));
    const load = await loadAgentsConfig(dir);
    expect(load.ok).toBe(false);
    if (!load.ok) {
      expect(load.error).toContain(join(dir, 'agents.json'));
      expect(load.error).toContain('agents.1.command');
      expect(load.error).toContain('agents.1.args');
    }
  });

  it('rejects unknown keys, duplicate names and env values that are not strings', async () => {
    write(JSON.stringify({ agents: [{ name: 'a', command: 'a', cmd: 'x' }] }));
    expect(await loadAgentsConfig(dir)).toMatchObject({ ok: false, error: expect.stringContaining('cmd') });
    write(JSON.stringify({ agents: [{ name: 'a', command: 'a' }, { name: 'a', command: 'b' }] }));
    expect(await loadAgentsConfig(dir)).toMatchObject({ ok: false, error: expect.stringContaining("agents.1.name: the name 'a' is used twice") });
    write(JSON.stringify({ agents: [{ name: 'a', command: 'a', env: { N: 1 } }] }));
    expect(await loadAgentsConfig(dir)).toMatchObject({ ok: false, error: expect.stringContaining('agents.0.env.N') });
  });

  it('reports a file it cannot read instead of throwing', async () => {
    mkdirSync(join(dir, 'agents.json'));
    expect(await loadAgentsConfig(dir)).toMatchObject({ ok: false, error: expect.stringContaining('cannot read the file') });
    rmSync(join(dir, 'agents.json'), { recursive: true });
    if (process.getuid?.() !== 0) {
      write('{}');
      chmodSync(join(dir, 'agents.json'), 0o000);
      expect(await loadAgentsConfig(dir)).toMatchObject({ ok: false, error: expect.stringContaining('EACCES') });
    }
  });
});
