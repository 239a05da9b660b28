import { afterEach, describe, expect, it } from 'vitest';
import { resolveConfigDir } from '../chats/agents-config.js';
import { resolveStateDir } from '../common/discovery.js';
import { isolatedEnv } from './isolated-env.js';

const saved = { ...process.env };
afterEach(() => {
  for (const key of ['XDG_STATE_HOME', 'XDG_CONFIG_HOME', 'PTYDECK_STATE_DIR', 'PTYDECK_CONFIG_DIR']) {
    if (saved[key] === undefined) delete process.env[key];
    else process.env[key] = saved[key];
  }
});

describe('isolatedEnv', () => {
  it("points a test's programs at a temporary HOME, even where the developer set XDG or ptydeck directories", () => {
    process.env.XDG_STATE_HOME = '/developer/.local/state';
    process.env.XDG_CONFIG_HOME = '/developer/.config';
    process.env.PTYDECK_STATE_DIR = '/developer/state';
    process.env.PTYDECK_CONFIG_DIR = '/developer/config';
    const env = isolatedEnv();
    const home = env.HOME!;
    expect(home).not.toBe(saved.HOME);
    const dirs = Object.entries(env).filter(([key]) => /^(HISTFILE|XDG_\w+_HOME)$/.test(key));
    expect(dirs.map(([key]) => key).sort()).toEqual(['HISTFILE', 'XDG_CACHE_HOME', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_STATE_HOME']);
    for (const [, value] of dirs) expect(value!.startsWith(home)).toBe(true);
    expect(resolveStateDir(env)).toBe(`${home}/.local/state/ptydeck`);
    expect(resolveConfigDir(env)).toBe(`${home}/.config/ptydeck`);
  });
});
