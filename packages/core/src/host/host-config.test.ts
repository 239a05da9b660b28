import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { developerShellIntegration, loadHostSettings } from './host-config.js';
import { fileTempDir } from '../testing/isolated-env.js';

function configDir(text?: string): string {
  const dir = fileTempDir('ptydeck-host-config-');
  if (text !== undefined) writeFileSync(join(dir, 'config.json'), text);
  return dir;
}

describe('the host settings in config.json', () => {
  it('keep sessions by default, and the environment can turn that off', () => {
    expect(loadHostSettings(configDir(), {})).toEqual({ persist: true });
    expect(loadHostSettings(configDir('{}'), { PTYDECK_PERSIST: '0' })).toEqual({ persist: false, persistOffBecause: 'PTYDECK_PERSIST' });
  });

  it('"persist": false holds whatever the environment says', () => {
    const dir = configDir('{ "persist": false }');
    for (const value of [undefined, '1', 'on', 'true']) {
      expect(loadHostSettings(dir, { PTYDECK_PERSIST: value })).toEqual({ persist: false, persistOffBecause: `"persist": false in ${join(dir, 'config.json')}` });
    }
  });

  it('a file that cannot be read as a config reads as its strictest, saying why', () => {
    for (const text of ['{ "persist": "no" }', '{ "persist": true, "unknown": 1 }', 'not json']) {
      const settings = loadHostSettings(configDir(text), {});
      expect(settings.persist, text).toBe(false);
      expect(settings.problem, text).toMatch(/config\.json: /);
    }
  });

  it("gives the developer's bash tabs the marks unless \"shellIntegration\": false; a broken file leaves their shell as it is", () => {
    expect(developerShellIntegration(configDir())).toBe(true);
    expect(developerShellIntegration(configDir('{ "persist": false }'))).toBe(true);
    expect(developerShellIntegration(configDir('{ "shellIntegration": false }'))).toBe(false);
    expect(developerShellIntegration(configDir('not json'))).toBe(false);
    expect(loadHostSettings(configDir('{ "shellIntegration": false }'), {})).toEqual({ persist: true });
  });
});
