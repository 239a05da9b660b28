import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAgentChoices } from './agent-choices.js';
import { fileTempDir } from '../testing/isolated-env.js';

let dir: string;
let bin: string;

beforeAll(() => {
  dir = fileTempDir('ptydeck-agent-choices-');
  bin = join(dir, 'bin');
  mkdirSync(bin);
  for (const name of ['claude-agent-acp', 'codex-acp', 'gemini']) {
    writeFileSync(join(bin, name), '#!/bin/sh\n');
    chmodSync(join(bin, name), 0o755);
  }
  // Present but not executable: not offered.
  writeFileSync(join(bin, 'opencode'), '');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('loadAgentChoices', () => {
  it('offers known agents found on PATH after the configured ones, unless one of that name is configured', async () => {
    const config = join(dir, 'config');
    mkdirSync(config, { recursive: true });
    writeFileSync(join(config, 'agents.json'), JSON.stringify({ agents: [{ name: 'codex-acp', command: '/opt/codex/codex-acp', args: ['--x'] }] }));
    const choices = await loadAgentChoices(config, `/nonexistent:${bin}`);
    expect(choices).toEqual({
      agents: [
        { name: 'codex-acp', command: '/opt/codex/codex-acp', args: ['--x'], env: {}, origin: 'config' },
        { name: 'claude-agent-acp', command: 'claude-agent-acp', args: [], env: {}, origin: 'path' },
        { name: 'gemini', command: 'gemini', args: ['--experimental-acp'], env: {}, origin: 'path' },
      ],
      configPath: join(config, 'agents.json'),
      configError: null,
    });
  });

  it('still offers agents on PATH when agents.json is broken, and says what is wrong with it', async () => {
    const config = join(dir, 'broken');
    mkdirSync(config, { recursive: true });
    writeFileSync(join(config, 'agents.json'), '{"agents": [{"name": "a"}]}');
    const choices = await loadAgentChoices(config, bin);
    expect(choices.agents.map((a) => [a.name, a.origin])).toEqual([
      ['claude-agent-acp', 'path'],
      ['codex-acp', 'path'],
      ['gemini', 'path'],
    ]);
    expect(choices.configError).toMatch(/agents\.json: .*command/);
  });
});
