import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SANDBOX_LIST_CHARS } from '@ptydeck/contract';
import { bin, buildCore, hostSandbox, processesOf, reap, reapAfterEach, stdioAgent, type HostSandbox } from '../testing/host-sandbox.js';
import { until } from '../testing/poll-until.js';
import { sandboxAvailability } from './availability.js';

/**
 * What git reads around a repository's `.git/config` that a sandboxed shell could make or change, with real processes:
 * the real host, `ptydeck mcp` under the MCP SDK client, real bubblewrap and bash, and the developer's own git run
 * outside afterwards. Each plant is a `core.fsmonitor`, which `git status` runs.
 */
const available = sandboxAvailability('workspace').ok;
const direnv = ['/usr/bin/direnv', '/usr/local/bin/direnv'].find((path) => existsSync(path));
beforeAll(buildCore, 120_000);

const { track, clients } = reapAfterEach();

async function run(client: Client, id: string, command: string): Promise<{ exit_code: number; output: string }> {
  const result = (await client.callTool({ name: 'terminal_run', arguments: { id, command } })) as { isError?: boolean; content: Array<{ text?: string }>; structuredContent?: any };
  if (result.isError) throw new Error(`terminal_run failed: ${result.content[0]?.text}`);
  return result.structuredContent;
}

async function create(client: Client, cwd?: string): Promise<{ id: string; sandbox: { readOnly?: string[]; readOnlyOmitted?: number; readOnlyWhy?: string } }> {
  const result = (await client.callTool({ name: 'terminal_create', arguments: cwd === undefined ? {} : { cwd } })) as { isError?: boolean; content: Array<{ text?: string }>; structuredContent?: any };
  if (result.isError) throw new Error(`terminal_create failed: ${result.content[0]?.text}`);
  return result.structuredContent;
}

type Repository = HostSandbox & { project: string; git: (dir: string, ...args: string[]) => string; planted: (name: string) => string; plant: (name: string) => string };

/** A host sandbox with a repository of one commit as the agent's workspace, and the developer's git outside; reaped after the test unless `box` is given. */
function repository(box: HostSandbox = track(hostSandbox())): Repository {
  const project = mkdtempSync(join(box.home, 'project-'));
  const env = { ...process.env, HOME: box.home, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' };
  const git = (dir: string, ...args: string[]) => execFileSync('git', ['-C', dir, ...args], { env, encoding: 'utf8' });
  git(box.home, 'init', '-q', project);
  writeFileSync(join(project, 'file'), 'one\n');
  git(project, 'add', 'file');
  git(project, 'commit', '-qm', 'one');
  const planted = (name: string) => join(box.home, `planted-${name}`);
  // A config whose core.fsmonitor leaves a mark outside the workspace, as printf writes it in the agent's shell.
  const plant = (name: string) => `'[core]\\n\\tfsmonitor = touch ${planted(name)}\\n'`;
  return { ...box, project, git, planted, plant };
}

describe.skipIf(!available)("a sandboxed shell and what git reads around the repository's config", () => {
  it("cannot make the included file a config names that does not exist yet (`include.path = ../shared.gitconfig`): the workspace is read-only, and says why", async () => {
    const r = repository();
    r.git(r.project, 'config', '--add', 'include.path', '../shared.gitconfig');
    const { client } = await stdioAgent(r, 'include-agent', { clients, cwd: r.project });
    const made = await create(client);
    await run(client, made.id, `printf ${r.plant('include')} > shared.gitconfig; echo tried`);
    r.git(r.project, 'status', '--short');
    expect(existsSync(r.planted('include'))).toBe(false);
    expect(made.sandbox.readOnlyWhy).toContain('shared.gitconfig');
  });

  it('cannot make .git/config.worktree where extensions.worktreeConfig is on and none exists yet; commits inside still work', async () => {
    const r = repository();
    r.git(r.project, 'config', 'extensions.worktreeConfig', 'true');
    expect(existsSync(join(r.project, '.git', 'config.worktree'))).toBe(false);
    const { client } = await stdioAgent(r, 'worktree-config-agent', { clients, cwd: r.project });
    const made = await create(client);
    await run(client, made.id, `printf ${r.plant('worktree')} >> .git/config.worktree; echo tried`);
    r.git(r.project, 'status', '--short');
    expect(existsSync(r.planted('worktree'))).toBe(false);
    // Made empty before the shell started, as git would make it: the same config to git.
    expect(readFileSync(join(r.project, '.git', 'config.worktree'), 'utf8')).toBe('');
    expect((await run(client, made.id, 'echo two > file && git -c user.name=a -c user.email=a@b commit -qam inside && echo committed')).output).toContain('committed');
  });

  it("cannot write a linked worktree's config.worktree or commondir (.git/worktrees/<name>/), which git reads in that worktree", async () => {
    const r = repository();
    r.git(r.project, 'config', 'extensions.worktreeConfig', 'true');
    const worktree = (name: string) => join(r.home, name);
    r.git(r.project, 'worktree', 'add', '-q', worktree('wt-config'));
    r.git(r.project, 'worktree', 'add', '-q', worktree('wt-common'));
    const { client } = await stdioAgent(r, 'linked-worktree-agent', { clients, cwd: r.project });
    const made = await create(client);
    await run(client, made.id, `printf ${r.plant('config')} >> .git/worktrees/wt-config/config.worktree; echo tried`);
    r.git(worktree('wt-config'), 'status', '--short');
    // A repository of the shell's own, with the plant in its config, named as the worktree's common directory.
    await run(client, made.id, `mkdir evil && cp -r .git/objects .git/refs .git/HEAD evil/ && printf ${r.plant('common')} > evil/config && printf '%s\\n' "$PWD/evil" > .git/worktrees/wt-common/commondir; echo tried`);
    // Nor move the worktree's directory aside and put its own in its place.
    await run(client, made.id, `mv .git/worktrees/wt-common .git/worktrees/aside && mkdir .git/worktrees/wt-common && cp .git/worktrees/aside/* .git/worktrees/wt-common/ && printf '%s\\n' "$PWD/evil" > .git/worktrees/wt-common/commondir; echo tried`);
    await run(client, made.id, `mv .git/worktrees .git/worktrees-aside && mkdir -p .git/worktrees/wt-common && cp .git/worktrees-aside/wt-common/* .git/worktrees/wt-common/ && printf '%s\\n' "$PWD/evil" > .git/worktrees/wt-common/commondir; echo tried`);
    // Where a move succeeded the worktree may be broken rather than planted: git failing there is not what is asserted.
    try {
      r.git(worktree('wt-common'), 'status', '--short');
    } catch {
      // Not a repository any more.
    }
    expect(['config', 'common'].filter((name) => existsSync(r.planted(name)))).toEqual([]);
  });

  it("cannot send an include through a directory of its own (`path = ../sub/l1/../inc`, `sub/l1` replaced by a link)", async () => {
    const r = repository();
    mkdirSync(join(r.project, 'sub', 'l1'), { recursive: true });
    writeFileSync(join(r.project, 'sub', 'inc'), '[user]\n\tname = dev\n');
    r.git(r.project, 'config', '--add', 'include.path', '../sub/l1/../inc');
    expect(r.git(r.project, 'config', 'user.name').trim()).toBe('dev');
    const { client } = await stdioAgent(r, 'dotdot-agent', { clients, cwd: r.project });
    const made = await create(client);
    await run(client, made.id, `mkdir -p evil/deep && printf ${r.plant('dotdot')} > evil/inc && rm -rf sub/l1; ln -s ../evil/deep sub/l1; echo tried`);
    r.git(r.project, 'status', '--short');
    expect(existsSync(r.planted('dotdot'))).toBe(false);
    expect(readFileSync(join(r.project, 'sub', 'inc'), 'utf8')).toBe('[user]\n\tname = dev\n');
  });

  it("cannot make .git/commondir naming a repository of its own, whose config git then reads; git still works outside and in", async () => {
    const r = repository();
    const { client } = await stdioAgent(r, 'commondir-agent', { clients, cwd: r.project });
    const made = await create(client);
    await run(client, made.id, `mkdir evil && cp -r .git/objects .git/refs .git/HEAD evil/ && printf ${r.plant('commondir')} > evil/config && printf '%s\\n' "$PWD/evil" > .git/commondir; echo tried`);
    r.git(r.project, 'status', '--short');
    expect(existsSync(r.planted('commondir'))).toBe(false);
    // The file made in its place names the repository itself: the same repository to git, outside and inside.
    expect(realpathSync(r.git(r.project, 'rev-parse', '--git-common-dir').trim())).toBe(realpathSync(join(r.project, '.git')));
    r.git(r.project, 'commit', '-q', '--allow-empty', '-m', 'outside');
    expect((await run(client, made.id, 'git -c user.name=a -c user.email=a@b commit -q --allow-empty -m inside && git log --format=%s | head -2')).output).toContain('inside\noutside');
  });

  // Open in the default profile, closed by config.json's readOnlyGit (as Codex's workspace-write keeps .git): a gitlink to a
  // repository the shell made from nothing, whose core.fsmonitor the developer's next `git status` in the superproject
  // runs, and a rebase left in progress, whose `exec` line the developer's `git rebase --continue` runs.
  it("with readOnlyGit, cannot add a gitlink to a repository of its own, nor leave a rebase in progress; builds and tests still write the project", async () => {
    const r = repository();
    mkdirSync(join(r.home, 'config'), { recursive: true });
    writeFileSync(join(r.home, 'config', 'config.json'), JSON.stringify({ sandbox: { readOnlyGit: true } }));
    const { client } = await stdioAgent(r, 'read-only-git-agent', { clients, cwd: r.project });
    const made = await create(client);
    expect(made.sandbox.readOnly).toContain(realpathSync(join(r.project, '.git')));
    const gitlink = await run(
      client,
      made.id,
      `git init -q x && printf ${r.plant('gitlink')} >> x/.git/config && git -C x -c user.name=a -c user.email=a@b commit -q --allow-empty -m x && git update-index --add --cacheinfo "160000,$(git -C x rev-parse HEAD),x"`,
    );
    expect(gitlink.exit_code).not.toBe(0);
    expect((await run(client, made.id, 'mkdir .git/rebase-merge')).output).toMatch(/Read-only file system/);
    r.git(r.project, 'status', '--short');
    expect(existsSync(r.planted('gitlink'))).toBe(false);
    expect(existsSync(join(r.project, '.git', 'rebase-merge'))).toBe(false);
    // What a build or a test writes in the project still goes through; a commit is the developer's, outside.
    expect(await run(client, made.id, 'mkdir -p dist && echo built > dist/out && cat dist/out')).toMatchObject({ exit_code: 0, output: expect.stringContaining('built') });
    expect((await run(client, made.id, 'git status --short')).exit_code).toBe(0);
  });

  it("cannot make the next shell's readOnlyWhy longer than the panel protocol takes (a path in its own repository's include): the create failed its result's validation after its shell had started", async () => {
    const r = repository();
    const { client } = await stdioAgent(r, 'long-why-agent', { clients, cwd: r.project });
    const made = await create(client);
    // A repository of its own beside, whose config includes a file through a link, by a path longer than the protocol's 4096.
    await run(client, made.id, `git init -q evil && ln -s . evil/lnk && printf '[include]\\n\\tpath = ../lnk/%s\\n' "$(head -c 6000 /dev/zero | tr '\\0' x)" >> evil/.git/config; echo tried`);
    const next = await create(client);
    expect(next.sandbox.readOnlyWhy).toMatch(/symbolic link/);
    expect(next.sandbox.readOnlyWhy!.length).toBeLessThanOrEqual(4096);
    // The developer's CLI, which reads the panel's session list, still exports the first shell.
    await run(client, made.id, 'echo still-readable');
    expect(execFileSync(process.execPath, [bin, 'export', made.id, '--format', 'text'], { env: r.env, encoding: 'utf8' })).toContain('still-readable');
  });
});

/**
 * One host and one agent for the cases below, each in a repository of its own (a host per case cost its start each time).
 * The developer's ~/.gitconfig names `core.hooksPath = .githooks`, relative: every repository's own `.githooks`.
 */
describe.skipIf(!available)("a sandboxed shell and the hooks and submodules git finds in the working tree", () => {
  let box: HostSandbox;
  let client: Client;
  const shared: Client[] = [];
  beforeAll(async () => {
    box = hostSandbox();
    writeFileSync(join(box.home, '.gitconfig'), '[core]\n\thooksPath = .githooks\n');
    ({ client } = await stdioAgent(box, 'tree-agent', { clients: shared }));
  }, 60_000);
  afterAll(async () => {
    await Promise.all(shared.map((each) => each.close().catch(() => {})));
    if (box === undefined) return;
    reap(box);
    await until(() => processesOf(box.stateDir).length === 0, 'no process of the shared host is left');
  });

  it("cannot hold the host with a FIFO as a linked worktree's gitdir (.git/worktrees/<name>/gitdir): the next shell's start read it and blocked every session and the panel", async () => {
    const r = repository(box);
    const made = await create(client, r.project);
    await run(client, made.id, 'mkdir -p .git/worktrees/stall && mkfifo .git/worktrees/stall/gitdir; echo made');
    // The next shell in that project starts, and the host still answers (before: terminal_create never answered).
    const next = await create(client, r.project);
    expect((await run(client, next.id, 'echo alive')).output).toContain('alive');
  });

  it("cannot make the hooks directory ~/.gitconfig's relative core.hooksPath names where it does not exist yet: it is made empty and read-only; commits work on both sides", async () => {
    const r = repository(box);
    const made = await create(client, r.project);
    const hook = `printf '#!/bin/sh\\ntouch ${r.planted('hook')}\\n' > .githooks/pre-commit && chmod +x .githooks/pre-commit`;
    await run(client, made.id, `mkdir -p .githooks; ${hook}; echo tried`);
    // Nor by moving the directory made for it aside.
    await run(client, made.id, `mv .githooks aside && mkdir .githooks && ${hook}; echo tried`);
    r.git(r.project, 'commit', '-q', '--allow-empty', '-m', 'outside');
    expect(existsSync(r.planted('hook'))).toBe(false);
    expect(readdirSync(join(r.project, '.githooks'))).toEqual([]);
    // An empty directory is nothing to git.
    expect(r.git(r.project, 'status', '--porcelain')).toBe('');
    expect((await run(client, made.id, 'git -c user.name=a -c user.email=a@b commit -q --allow-empty -m inside && echo committed')).output).toContain('committed');
  });

  it("cannot point a submodule's .git file at a repository of its own, whose core.fsmonitor the developer's next git status in the superproject ran", async () => {
    const r = repository(box);
    const library = repository(box);
    r.git(r.project, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', library.project, 'libs/lib');
    r.git(r.project, 'commit', '-qm', 'with a submodule');
    const made = await create(client, r.project);
    const evil = `mkdir -p evil && cp -r .git/modules/libs/lib/objects .git/modules/libs/lib/refs .git/modules/libs/lib/HEAD evil/ && printf ${r.plant('gitfile')} > evil/config`;
    await run(client, made.id, `${evil} && printf 'gitdir: %s\\n' "$PWD/evil" > libs/lib/.git; echo tried`);
    // Nor by moving the submodule's directory, or the one above it, aside and making its own in its place.
    await run(client, made.id, `mv libs/lib libs/aside && mkdir libs/lib && printf 'gitdir: %s\\n' "$PWD/evil" > libs/lib/.git; echo tried`);
    await run(client, made.id, `mv libs libs-aside && mkdir -p libs/lib && printf 'gitdir: %s\\n' "$PWD/evil" > libs/lib/.git; echo tried`);
    r.git(r.project, 'status', '--short');
    expect(existsSync(r.planted('gitfile'))).toBe(false);
    expect(readFileSync(join(r.project, 'libs', 'lib', '.git'), 'utf8')).toBe('gitdir: ../../.git/modules/libs/lib\n');
    // Its own hooks directory (~/.gitconfig's `.githooks`, in the submodule's tree) is made and read-only as the superproject's.
    await run(client, made.id, 'mkdir -p libs/lib/.githooks; touch libs/lib/.githooks/pre-commit; echo tried');
    expect(existsSync(join(r.project, 'libs', 'lib', '.githooks', 'pre-commit'))).toBe(false);
    // Commits in the submodule still work inside.
    expect((await run(client, made.id, 'cd libs/lib && git -c user.name=a -c user.email=a@b commit -q --allow-empty -m inside && echo committed; cd ../..')).output).toContain('committed');
  });

  it("cannot give a submodule whose working tree has no .git yet (deinit, a clone without --recurse-submodules) a repository of its own, whose core.fsmonitor the developer's next git status in the superproject ran", async () => {
    const r = repository(box);
    const library = repository(box);
    r.git(r.project, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', library.project, 'libs/lib');
    r.git(r.project, 'commit', '-qm', 'with a submodule');
    // A clone without --recurse-submodules: libs/lib an empty directory, no .git/modules. And the original, deinit'ed:
    // libs/lib empty, its git directory kept in .git/modules.
    const clone = join(box.home, `clone-${r.project.split('-').at(-1)}`);
    r.git(box.home, 'clone', '-q', r.project, clone);
    r.git(r.project, 'submodule', 'deinit', '-q', '-f', 'libs/lib');
    for (const project of [r.project, clone]) {
      expect(readdirSync(join(project, 'libs', 'lib'))).toEqual([]);
      const made = await create(client, project);
      expect(made.sandbox.readOnly).toContain(join(project, 'libs', 'lib'));
      const own = `git init -q libs/lib && printf ${r.plant('empty-tree')} >> libs/lib/.git/config`;
      await run(client, made.id, `${own}; echo tried`);
      // Nor by moving the directory, or the one above it, aside.
      await run(client, made.id, `mv libs/lib libs/aside && ${own}; mv libs libs-aside && ${own}; echo tried`);
      r.git(project, 'status', '--short');
      expect(existsSync(r.planted('empty-tree'))).toBe(false);
      // The superproject's own work inside goes on.
      expect((await run(client, made.id, 'git -c user.name=a -c user.email=a@b commit -q --allow-empty -m inside && echo committed')).output).toContain('committed');
    }
    // A .gitmodules the shell fills, for the next shell's start to bind each tree: past the cap, its workspace is read-only.
    const made = await create(client, clone);
    await run(client, made.id, `for i in $(seq 300); do mkdir -p m/$i; printf '[submodule "m%s"]\\n\\tpath = m/%s\\n' $i $i; done >> .gitmodules; echo tried`);
    expect((await create(client, clone)).sandbox.readOnlyWhy).toMatch(/more than 256 submodules/);
  });

  it("cannot write the config of a submodule whose git directory is in its working tree (`git submodule add` of a clone already there), whose core.fsmonitor the developer's next git status in the superproject ran", async () => {
    const r = repository(box);
    const library = repository(box);
    r.git(r.project, 'clone', '-q', library.project, 'libs/lib');
    r.git(r.project, 'submodule', 'add', '-q', library.project, 'libs/lib');
    r.git(r.project, 'commit', '-qm', 'with a submodule whose .git is a directory');
    const made = await create(client, r.project);
    await run(client, made.id, `printf ${r.plant('embedded')} >> libs/lib/.git/config; echo tried`);
    // Nor by moving the submodule aside and making its own in its place.
    await run(client, made.id, `mv libs/lib libs/aside && git init -q libs/lib && printf ${r.plant('embedded')} >> libs/lib/.git/config; echo tried`);
    r.git(r.project, 'status', '--short');
    expect(existsSync(r.planted('embedded'))).toBe(false);
    expect((await run(client, made.id, 'cd libs/lib && git -c user.name=a -c user.email=a@b commit -q --allow-empty -m inside && echo committed; cd ../..')).output).toContain('committed');
  });

  it("cannot make the next shell's read-only list as long as it likes (a .git/hooks, .envrc and .vscode in each of 40 directories with long names): the info lists the first and counts the rest, and the fence still holds them all", async () => {
    const r = repository(box);
    const made = await create(client, r.project);
    const name = 'd'.repeat(200);
    // Each a repository (a directory directly in the workspace with a .git of its own is not pinned: it may move aside whole).
    await run(client, made.id, `for i in $(seq 100 139); do mkdir -p ${name}$i/.git/hooks ${name}$i/.vscode && touch ${name}$i/.envrc; done; echo made`);
    const next = await create(client, r.project);
    const listed = next.sandbox.readOnly!;
    expect(listed.reduce((sum, path) => sum + path.length, 0)).toBeLessThanOrEqual(MAX_SANDBOX_LIST_CHARS);
    expect(listed.length + next.sandbox.readOnlyOmitted!).toBeGreaterThanOrEqual(160);
    // The last directory's, left out of the list, is read-only all the same.
    await run(client, next.id, `echo 'touch ${r.planted('envrc')}' > ${name}139/.envrc; echo tried`);
    expect(readFileSync(join(r.project, `${name}139`, '.envrc'), 'utf8')).toBe('');
    // The developer's CLI still reads every session's info.
    expect(JSON.parse(execFileSync(process.execPath, [bin, 'ls', '--json'], { env: box.env, encoding: 'utf8' })).length).toBeGreaterThanOrEqual(2);
  });

  it("cannot put a command in a directory an .envrc's PATH_add puts first on PATH, made or not (`bin/git` ran as the developer's git once direnv loaded); node_modules/.bin stays writable", async () => {
    const r = repository(box);
    mkdirSync(join(r.project, 'bin'));
    writeFileSync(join(r.project, 'bin', 'setup'), '#!/bin/sh\necho setup\n', { mode: 0o755 });
    writeFileSync(join(r.project, '.envrc'), 'PATH_add bin\nPATH_add "$PWD/tools/bin" node_modules/.bin\n');
    const made = await create(client, r.project);
    const git = (dir: string) => `mkdir -p ${dir} && printf '#!/bin/sh\\ntouch ${r.planted('path-add')}\\n' > ${dir}/git && chmod +x ${dir}/git`;
    await run(client, made.id, `${git('bin')}; ${git('tools/bin')}; mv bin bin-aside && ${git('bin')}; echo tried`);
    expect((await run(client, made.id, `${git('node_modules/.bin')} && echo installed`)).output).toContain('installed');
    rmSync(join(r.project, 'node_modules'), { recursive: true });
    expect(readdirSync(join(r.project, 'bin'))).toEqual(['setup']);
    // An .envrc it makes beside, naming 100 directories for the next shell's start to make and bind: read-only instead.
    await run(client, made.id, `mkdir -p sub && for i in $(seq 100); do echo "PATH_add d$i"; done > sub/.envrc; echo tried`);
    expect((await create(client, r.project)).sandbox.readOnlyWhy).toMatch(/more than 64 directories on PATH/);
    expect(existsSync(join(r.project, 'sub', 'd1'))).toBe(false);
    if (direnv === undefined) return;
    const developer = { ...box.env, GIT_CONFIG_NOSYSTEM: '1' };
    execFileSync(direnv, ['allow', r.project], { env: developer });
    // The developer's prompt, entering the project: git status, with the PATH direnv made.
    execFileSync(direnv, ['exec', r.project, 'git', 'status', '--short'], { env: developer, cwd: r.project, stdio: 'ignore' });
    expect(existsSync(r.planted('path-add'))).toBe(false);
  });

  it("cannot write, nor make, the .env an .envrc of `dotenv` loads: its BASH_ENV ran in the developer's next bash in the project", async () => {
    const r = repository(box);
    writeFileSync(join(r.project, '.envrc'), 'dotenv_if_exists\n');
    const made = await create(client, r.project);
    await run(client, made.id, `printf 'touch ${r.planted('direnv')}\\n' > evil.sh; printf 'BASH_ENV=%s/evil.sh\\n' "$PWD" >> .env; echo tried`);
    // Made empty before the shell started, as nothing to direnv, and read-only.
    expect(readFileSync(join(r.project, '.env'), 'utf8')).toBe('');
    if (direnv === undefined) return;
    const developer = { ...box.env, GIT_CONFIG_NOSYSTEM: '1' };
    execFileSync(direnv, ['allow', r.project], { env: developer });
    execFileSync(direnv, ['exec', r.project, 'bash', '-c', 'true'], { env: developer, stdio: 'ignore' });
    expect(existsSync(r.planted('direnv'))).toBe(false);
  });
});
