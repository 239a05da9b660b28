import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileTempDir } from '../testing/isolated-env.js';
import { namedByGitConfig, readGitConfig } from './git-named.js';

describe('what a git config names in the project', () => {
  it('reads core.hooksPath and include paths as git does: any case, quoted, commented, on the header line', () => {
    const dir = fileTempDir('ptydeck-git-named-');
    const file = join(dir, 'config');
    writeFileSync(
      file,
      ['[core]', '\tHooksPath = "scripts/my hooks" # a comment', '[includeIf "gitdir:~/work/"]', '\tpath = ../shared.gitconfig ; another', '[include] path = ~/inc.gitconfig', '[user]', '\tpath = not-an-include'].join('\n'),
    );
    expect(readGitConfig(file)).toEqual({ hooksPaths: ['scripts/my hooks'], includes: ['../shared.gitconfig', '~/inc.gitconfig'], worktrees: [], modulePaths: [] });
    expect(readGitConfig(join(dir, 'missing'))).toEqual({ hooksPaths: [], includes: [], worktrees: [], modulePaths: [] });
  });

  it('joins a value continued on the next line (a backslash before the newline), as git does, and no comment', () => {
    const dir = fileTempDir('ptydeck-git-named-');
    try {
      const file = join(dir, 'config');
      // A continued value is one value to git; before, the fence read `../con\` and left `../config.inc` writable, whose
      // core.fsmonitor the developer's next git status ran. A comment's trailing backslash continues nothing.
      const text = ['[include]', '\tpath = ../con\\', 'fig.inc', '[core]', '\thooksPath = "tools/\\', 'hooks" ; x', '# a comment \\', '[include] path = next.inc'].join('\n') + '\n';
      writeFileSync(file, text);
      const ours = readGitConfig(file);
      const env = { ...process.env, HOME: dir, GIT_CONFIG_NOSYSTEM: '1' };
      const git = (key: string) => execFileSync('git', ['config', '--no-includes', '-f', file, '--get-all', key], { env, encoding: 'utf8' }).trim().split('\n');
      expect(ours).toEqual({ hooksPaths: git('core.hooksPath'), includes: git('include.path'), worktrees: [], modulePaths: [] });
      expect(ours).toEqual({ hooksPaths: ['tools/hooks'], includes: ['../config.inc', 'next.inc'], worktrees: [], modulePaths: [] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('follows includes as deep as git does (10), not fewer: each one past the fence\'s depth stayed writable', () => {
    const dir = fileTempDir('ptydeck-git-named-');
    try {
      // config includes 1.inc, which includes 2.inc, ... 10.inc; git reads all ten.
      writeFileSync(join(dir, 'config'), '[include]\n\tpath = 1.inc\n');
      for (let n = 1; n <= 10; n++) writeFileSync(join(dir, `${n}.inc`), n < 10 ? `[include]\n\tpath = ${n + 1}.inc\n` : '[user]\n\tname = deep\n');
      const env = { ...process.env, HOME: dir, GIT_CONFIG_NOSYSTEM: '1' };
      expect(execFileSync('git', ['config', '-f', join(dir, 'config'), '--includes', 'user.name'], { env, encoding: 'utf8' }).trim()).toBe('deep');
      expect(namedByGitConfig(join(dir, 'config'), dir, dir)).toEqual(Array.from({ length: 10 }, (_, n) => join(dir, `${n + 1}.inc`)));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reads an include past a long config's first 64 KiB (a repository's thousand branches), as git does", () => {
    const dir = fileTempDir('ptydeck-git-named-');
    try {
      const branches = Array.from({ length: 1200 }, (_, n) => `[branch "feature/${n}"]\n\tremote = origin\n\tmerge = refs/heads/feature/${n}\n`).join('');
      writeFileSync(join(dir, 'config'), `${branches}[include]\n\tpath = late.inc\n`);
      expect(branches.length).toBeGreaterThan(64 * 1024);
      expect(readGitConfig(join(dir, 'config')).includes).toEqual(['late.inc']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("resolves them (hooks against the worktree, includes against their file), husky's _ with the directory above, and follows includes", () => {
    const root = fileTempDir('ptydeck-git-named-');
    const git = join(root, '.git');
    writeFileSync(join(root, 'shared.gitconfig'), '[core]\n\thooksPath = .githooks\n');
    mkdirSync(git);
    writeFileSync(join(git, 'config'), '[core]\n\thooksPath = .husky/_\n[include]\n\tpath = ../shared.gitconfig\n');
    expect(namedByGitConfig(join(git, 'config'), root, '/home/me')).toEqual([join(root, '.husky/_'), join(root, '.husky'), join(root, 'shared.gitconfig'), join(root, '.githooks')]);
  });
});
