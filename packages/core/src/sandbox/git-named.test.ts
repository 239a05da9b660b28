import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { namedByGitConfig, readGitConfig } from './git-named.js';

describe('what a git config names in the project', () => {
  it('reads core.hooksPath and include paths as git does: any case, quoted, commented, on the header line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ptydeck-git-named-'));
    const file = join(dir, 'config');
    writeFileSync(
      file,
      ['[core]', '\tHooksPath = "scripts/my hooks" # a comment', '[includeIf "gitdir:~/work/"]', '\tpath = ../shared.gitconfig ; another', '[include] path = ~/inc.gitconfig', '[user]', '\tpath = not-an-include'].join('\n'),
    );
    expect(readGitConfig(file)).toEqual({ hooksPaths: ['scripts/my hooks'], includes: ['../shared.gitconfig', '~/inc.gitconfig'] });
    expect(readGitConfig(join(dir, 'missing'))).toEqual({ hooksPaths: [], includes: [] });
  });

  it("resolves them (hooks against the worktree, includes against their file), husky's _ with the directory above, and follows includes", () => {
    const root = mkdtempSync(join(tmpdir(), 'ptydeck-git-named-'));
    const git = join(root, '.git');
    writeFileSync(join(root, 'shared.gitconfig'), '[core]\n\thooksPath = .githooks\n');
    mkdirSync(git);
    writeFileSync(join(git, 'config'), '[core]\n\thooksPath = .husky/_\n[include]\n\tpath = ../shared.gitconfig\n');
    expect(namedByGitConfig(join(git, 'config'), root, '/home/me')).toEqual([join(root, '.husky/_'), join(root, '.husky'), join(root, 'shared.gitconfig'), join(root, '.githooks')]);
  });
});
