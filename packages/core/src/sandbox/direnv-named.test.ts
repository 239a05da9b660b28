import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileTempDir } from '../testing/isolated-env.js';
import { namedByEnvrc } from './direnv-named.js';

describe("what a project's .envrc has direnv load", () => {
  it('names the files of dotenv, source_env, use flake and use nix, relative to the .envrc, $PWD and ~ expanded', () => {
    const dir = fileTempDir('ptydeck-direnv-named-');
    const envrc = join(dir, '.envrc');
    writeFileSync(envrc, ['# dotenv commented.env', 'dotenv', 'dotenv_if_exists "$PWD/.env.local" && source_env ../shared.envrc', "source_env_if_exists '~/x.envrc'; use flake .#dev", 'PATH_add node_modules/.bin', 'use nix'].join('\n'));
    expect(namedByEnvrc(envrc, '/home/dev').files).toEqual([
      join(dir, '.env'),
      join(dir, '.env.local'),
      join(dir, '..', 'shared.envrc'),
      '/home/dev/x.envrc',
      join(dir, 'flake.nix'),
      join(dir, 'flake.lock'),
      // No shell.nix yet: one made would be taken before default.nix.
      join(dir, 'shell.nix'),
      join(dir, 'default.nix'),
    ]);
    writeFileSync(join(dir, 'shell.nix'), '{}\n');
    writeFileSync(envrc, 'use nix\n');
    expect(namedByEnvrc(envrc, '/home/dev').files).toEqual([join(dir, 'shell.nix')]);
  });

  it("names the directories PATH_add and `path_add PATH` put first on PATH, but not those in a node_modules or built from a variable", () => {
    const dir = fileTempDir('ptydeck-direnv-named-');
    const envrc = join(dir, '.envrc');
    writeFileSync(envrc, ['PATH_add bin "$PWD/tools/bin" node_modules/.bin', 'path_add PATH ~/x/bin; path_add MANPATH man', 'PATH_add "$GOPATH/bin"'].join('\n'));
    expect(namedByEnvrc(envrc, '/home/dev')).toEqual({ files: [], pathDirs: [join(dir, 'bin'), join(dir, 'tools', 'bin'), '/home/dev/x/bin'] });
  });

  it('says what it cannot follow: a path built from a variable', () => {
    const dir = fileTempDir('ptydeck-direnv-named-');
    const envrc = join(dir, '.envrc');
    writeFileSync(envrc, 'dotenv "$ENVFILE"\n');
    expect(namedByEnvrc(envrc, '/home/dev').unknown).toContain('$ENVFILE');
    expect(namedByEnvrc(join(dir, 'missing'), '/home/dev')).toEqual({ files: [], pathDirs: [] });
  });
});
