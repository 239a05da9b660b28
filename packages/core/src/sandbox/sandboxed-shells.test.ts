import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { bin, buildCore, discoveryOf, hostSandbox, processesOf, reapAfterEach, stdioAgent, type HostSandbox } from '../testing/host-sandbox.js';
import { until } from '../testing/poll-until.js';
import { sandboxAvailability } from './availability.js';

/**
 * Issue 35 from the agent's side, with real processes: the real host, the real
 * `ptydeck mcp` under the official MCP SDK client, real bubblewrap and bash.
 */
const available = sandboxAvailability('workspace').ok;
beforeAll(buildCore, 120_000);

const { track, clients } = reapAfterEach();

type ToolResult = { isError?: boolean; content: Array<{ text?: string }>; structuredContent?: Record<string, any> };

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args })) as ToolResult;
}

async function ok(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const result = await call(client, name, args);
  if (result.isError) throw new Error(`${name} failed: ${result.content[0]?.text}`);
  return result.structuredContent!;
}

/** A host sandbox with a key in ~/.ssh and a workspace of its own. */
function box(extra: Record<string, string> = {}): HostSandbox & { workspace: string } {
  const made = hostSandbox(extra);
  track(made);
  mkdirSync(join(made.home, '.ssh'), { mode: 0o700 });
  writeFileSync(join(made.home, '.ssh', 'id_test'), 'PRIVATE-KEY-MATERIAL\n', { mode: 0o600 });
  const workspace = mkdtempSync(join(made.home, 'project-'));
  return { ...made, workspace };
}

/** A PATH with every program of /usr/bin and /bin but bubblewrap: a machine without it. */
function pathWithoutBwrap(home: string): string {
  const dir = join(home, 'no-bwrap-bin');
  mkdirSync(dir);
  for (const from of ['/usr/bin', '/bin']) {
    for (const name of readdirSync(from)) {
      if (name === 'bwrap') continue;
      try {
        symlinkSync(join(from, name), join(dir, name));
      } catch {
        // Already linked from the other directory.
      }
    }
  }
  return dir;
}

describe.skipIf(!available)('an agent shell in the default workspace sandbox', () => {
  it('writes in its workspace, cannot read keys or ptydeck\'s state, keeps exact exit codes, and leaves no process when closed', async () => {
    // Credentials the developer's shell exported, in the environment the host and its sessions inherit; and a variable
    // whose name has TOKEN in a word of its own only as a part (Hugging Face's), which stays.
    // And tokens under names that say nothing, known by their issuer's prefix (before, both were in every sandboxed shell).
    const b = box({
      GH_TOKEN: 'ghp-secret-in-env', ANTHROPIC_API_KEY: 'sk-secret-in-env', DATABASE_URL: 'postgres://app:db-secret-in-env@localhost/app', TOKENIZERS_PARALLELISM: 'false',
      GH: `ghp_${'SecretInEnv'.repeat(4)}`, OPENAI: `sk-proj-${'SecretInEnv'.repeat(3)}`,
    });
    // And tokens exported in the startup files the shell reads (before, `cat ~/.bashrc` showed both, and the shell's bash,
    // which sources ~/.profile and so ~/.bashrc, set them again after the scrubbed environment).
    writeFileSync(join(b.home, '.bashrc'), `export PLAIN_SETTING=kept-from-bashrc\nexport GH_TOKEN=ghp_${'SecretInRc'.repeat(4)}\nalias ll='ls -l'\n`);
    writeFileSync(join(b.home, '.profile'), `DEPLOY_PASSWORD='secret-in-profile'\n. "$HOME/.bashrc"\n`);
    const { client } = await stdioAgent(b, 'sandboxed-agent', { clients, cwd: b.workspace });
    const made = await ok(client, 'terminal_create', {});
    expect(made.sandbox).toMatchObject({ profile: 'workspace', network: true });
    expect(made.sandbox.writable).toContain(b.workspace);
    const id = made.id as string;
    const run = (command: string) => ok(client, 'terminal_run', { id, command });

    expect(await run('echo made > made.txt && cat made.txt')).toMatchObject({ exit_code: 0, output: expect.stringContaining('made') });
    const key = await run('cat ~/.ssh/id_test');
    expect(key.exit_code).not.toBe(0);
    expect(key.output).not.toContain('PRIVATE-KEY-MATERIAL');
    expect((await run('touch ~/planted')).exit_code).not.toBe(0);
    expect((await run('touch /etc/planted')).output).toMatch(/Read-only file system/);
    // ptydeck's state directory is an empty directory inside.
    expect(await run(`ls -A ${b.stateDir}`)).toMatchObject({ exit_code: 0, output: '' });
    expect((await run(`ls ${b.stateDir}/sessions`)).exit_code).not.toBe(0);
    expect((await run(`cat ${b.stateDir}/server.json`)).exit_code).not.toBe(0);
    // The CLI finds no host from inside: its state directory is not there.
    const url = await run(`${process.execPath} ${bin} url`);
    expect(url.exit_code).not.toBe(0);
    expect(url.output).not.toMatch(/#ticket=/);
    expect((await run('(exit 42)')).exit_code).toBe(42);
    // Before, each was in the shell's environment, though ~/.config/gh and ~/.aws are hidden.
    // Nor in the environment bubblewrap started with, which its own process, pid 1 inside, keeps in /proc/1/environ.
    const env = await run(`env; tr '\\0' '\\n' < /proc/1/environ`);
    expect(env.output).not.toContain('secret-in-env');
    expect(env.output).not.toContain('SecretInEnv');
    expect(env.output).toContain('TOKENIZERS_PARALLELISM=false');
    const startup = await run('cat ~/.bashrc ~/.profile; env; alias');
    expect(startup.output).not.toContain('SecretInRc');
    expect(startup.output).not.toContain('secret-in-profile');
    // The rest of the files still runs: the developer's settings and aliases are there.
    expect(startup.output).toContain('PLAIN_SETTING=kept-from-bashrc');
    expect(startup.output).toContain("alias ll='ls -l'");

    const listed = await ok(client, 'terminal_list');
    expect(listed.terminals.find((t: { id: string }) => t.id === id).sandbox).toBe('workspace');
    await run('sleep 600 &');
    await ok(client, 'terminal_close', { id, force: true });
    await until(() => processesOf(b.stateDir).every((pid) => !isSessionProcess(pid)), 'no process of the session is left');
  });

  it('refuses a looser profile than its own, and gives a stricter one', async () => {
    const b = box();
    const { client } = await stdioAgent(b, 'sandboxed-agent', { clients, cwd: b.workspace });
    const looser = await call(client, 'terminal_create', { sandbox: 'off' });
    expect(looser.isError).toBe(true);
    expect(looser.content[0]?.text).toMatch(/looser than your profile "workspace"/);
    const offline = await ok(client, 'terminal_create', { sandbox: 'workspace-offline' });
    expect(offline.sandbox).toMatchObject({ profile: 'workspace-offline', network: false });
  });

  it('--sandbox off gives the developer\'s own reach', async () => {
    const b = box();
    const { client } = await stdioAgent(b, 'trusted-agent', { clients, cwd: b.workspace, args: ['--sandbox', 'off'] });
    const made = await ok(client, 'terminal_create', {});
    expect(made.sandbox).toMatchObject({ profile: 'off' });
    expect((await ok(client, 'terminal_run', { id: made.id, command: 'cat ~/.ssh/id_test' })).output).toContain('PRIVATE-KEY-MATERIAL');
  });
});

describe.skipIf(!available)("a sandboxed shell that may write one of HOME's dot-directories (config.json's `writable`)", () => {
  it("cannot fill it to hide a dot-file's link from the next shell's fence (the walk's cap)", async () => {
    const b = box();
    const dotfiles = join(b.home, 'dotfiles');
    mkdirSync(dotfiles);
    writeFileSync(join(dotfiles, 'vimrc'), '" the developer\'s\n');
    symlinkSync(join(dotfiles, 'vimrc'), join(b.home, '.vimrc'));
    // ~/.m2 is listed before ~/.vimrc (Node lists a directory sorted by name).
    const m2 = join(b.home, '.m2');
    mkdirSync(m2);
    mkdirSync(join(b.home, 'config'), { recursive: true });
    writeFileSync(join(b.home, 'config', 'config.json'), JSON.stringify({ sandbox: { writable: [m2] } }));
    const { client } = await stdioAgent(b, 'filling-agent', { clients, cwd: b.workspace });
    const before = await ok(client, 'terminal_create', { cwd: dotfiles });
    expect(before.sandbox.writable).not.toContain(dotfiles);
    const filler = await ok(client, 'terminal_create', {});
    const filled = await ok(client, 'terminal_run', { id: filler.id, command: `cd ${m2} && touch f{1..5001} && ls | wc -l` });
    expect(filled.output.trim()).toBe('5001');
    const after = await ok(client, 'terminal_create', { cwd: dotfiles });
    expect(after.sandbox.writable).not.toContain(dotfiles);
    const write = await ok(client, 'terminal_run', { id: after.id, command: `echo '!touch ~/pwned' >> ${join(dotfiles, 'vimrc')}` });
    expect(write.exit_code).not.toBe(0);
    expect(readFileSync(join(dotfiles, 'vimrc'), 'utf8')).toBe('" the developer\'s\n');
  });
});

describe.skipIf(!available)('a sandboxed shell in a folder of projects', () => {
  it("cannot fill it with directories so that the next shell's fence leaves a project's .git/config writable", async () => {
    const b = box();
    const project = join(b.workspace, 'zz-project');
    mkdirSync(project);
    execFileSync('git', ['init', '-q', project]);
    const config = readFileSync(join(project, '.git', 'config'), 'utf8');
    const { client } = await stdioAgent(b, 'filling-agent', { clients, cwd: b.workspace });
    const filler = await ok(client, 'terminal_create', {});
    expect(filler.sandbox.readOnly).toContain(join(project, '.git', 'config'));
    // Listed before zz-project, past the number of directories looked into at a shell's start.
    expect((await ok(client, 'terminal_run', { id: filler.id, command: 'mkdir d{000..600} && echo made' })).output).toContain('made');
    const next = await ok(client, 'terminal_create', {});
    const write = await ok(client, 'terminal_run', { id: next.id, command: `git -C ${project} config core.fsmonitor 'touch ~/planted'` });
    expect(write.exit_code).not.toBe(0);
    expect(readFileSync(join(project, '.git', 'config'), 'utf8')).toBe(config);
  });
});

describe.skipIf(!available)('a sandboxed shell in a project with a submodule', () => {
  it("cannot fill .git/modules with directories so that the next shell's fence leaves the submodule's config writable", async () => {
    const b = box();
    const project = b.workspace;
    const library = mkdtempSync(join(b.home, 'library-'));
    const gitEnv = { ...process.env, HOME: b.home, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' };
    const git = (dir: string, ...args: string[]) => execFileSync('git', ['-C', dir, ...args], { env: gitEnv, encoding: 'utf8' });
    for (const dir of [project, library]) execFileSync('git', ['init', '-q', dir], { env: gitEnv });
    git(library, 'commit', '-q', '--allow-empty', '-m', 'lib');
    git(project, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', library, 'zlib');
    git(project, 'commit', '-qm', 'with a submodule');
    const moduleConfig = join(project, '.git', 'modules', 'zlib', 'config');
    const before = readFileSync(moduleConfig, 'utf8');
    const { client } = await stdioAgent(b, 'filling-agent', { clients, cwd: project });
    const filler = await ok(client, 'terminal_create', {});
    expect(filler.sandbox.readOnly).toContain(moduleConfig);
    // Listed before zlib, past the directories of .git/modules looked into at a shell's start.
    expect((await ok(client, 'terminal_run', { id: filler.id, command: 'mkdir .git/modules/a{000..300} && echo made' })).output).toContain('made');
    const next = await ok(client, 'terminal_create', {});
    const write = await ok(client, 'terminal_run', { id: next.id, command: `git -C zlib config core.fsmonitor 'touch ~/planted'` });
    expect(write.exit_code).not.toBe(0);
    expect(readFileSync(moduleConfig, 'utf8')).toBe(before);
    // Commits in the superproject still work.
    expect((await ok(client, 'terminal_run', { id: next.id, command: 'git -c user.name=a -c user.email=a@b commit -q --allow-empty -m inside && echo committed' })).output).toContain('committed');
  });
});

describe.skipIf(!available)('a sandboxed shell asking for a panel link', () => {
  it('gets none from a process whose ancestry is deeper than the judge walks, each level a POSIX session of its own', async () => {
    const b = box();
    const { client } = await stdioAgent(b, 'deep-agent', { clients, cwd: b.workspace });
    const made = await ok(client, 'terminal_create', {});
    const url = new URL(discoveryOf(b).url);
    // 300 setsid, each waiting for the next, which it started in a new POSIX session; no ptydeck variable in any.
    const chain = Array.from({ length: 300 }, () => '/usr/bin/setsid -w').join(' ');
    const ask = `env -i ${chain} /usr/bin/curl -s -X POST -H 'Host: ${url.host}' ${url.origin}/ticket`;
    const asked = await ok(client, 'terminal_run', { id: made.id, command: ask, timeout_ms: 120_000 });
    expect(asked.output).not.toMatch(/#ticket=/);
    expect(asked.output).toMatch(/deeper|refused|inside/i);
  });
});

describe.skipIf(!available)('a sandboxed shell in a project whose git hooks are links into it', () => {
  it("cannot edit the file a hook links to (`ln -s ../../hooks/pre-commit .git/hooks/pre-commit`), which the developer's next commit runs", async () => {
    const b = box();
    const project = b.workspace;
    execFileSync('git', ['init', '-q', project]);
    mkdirSync(join(project, 'hooks'));
    writeFileSync(join(project, 'hooks', 'pre-commit'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    symlinkSync('../../hooks/pre-commit', join(project, '.git', 'hooks', 'pre-commit'));
    const { client } = await stdioAgent(b, 'hook-agent', { clients, cwd: project });
    const made = await ok(client, 'terminal_create', {});
    const write = await ok(client, 'terminal_run', { id: made.id, command: "echo 'touch ~/planted' >> hooks/pre-commit" });
    expect(write.exit_code).not.toBe(0);
    expect(readFileSync(join(project, 'hooks', 'pre-commit'), 'utf8')).toBe('#!/bin/sh\nexit 0\n');
    // The rest of the project stays writable, and commits inside run the hook as it is.
    expect((await ok(client, 'terminal_run', { id: made.id, command: 'echo x > hooks/other && git add -A && git -c user.name=a -c user.email=a@b commit -qm inside && echo committed' })).output).toContain('committed');
  });
});

describe.skipIf(!available)('a sandboxed shell in a project whose git config or hooks name files deeper in it', () => {
  it("cannot move aside the directory above a read-only included config, hooks directory or linked hook and put its own in its place, which the developer's next git runs", async () => {
    const b = box();
    const project = b.workspace;
    const gitEnv = { ...process.env, HOME: b.home, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' };
    const git = (dir: string, ...args: string[]) => execFileSync('git', ['-C', dir, ...args], { env: gitEnv, encoding: 'utf8' });
    execFileSync('git', ['init', '-q', project], { env: gitEnv });
    // Three layouts a project has: a shared config it includes, a hooks directory, a hook linked into the project.
    mkdirSync(join(project, 'config', 'git'), { recursive: true });
    writeFileSync(join(project, 'config', 'git', 'repo.gitconfig'), '[user]\n\tname = dev\n');
    git(project, 'config', '--add', 'include.path', '../config/git/repo.gitconfig');
    mkdirSync(join(project, 'tools', 'git-hooks'), { recursive: true });
    writeFileSync(join(project, 'tools', 'git-hooks', 'pre-commit'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    git(project, 'config', 'core.hooksPath', 'tools/git-hooks');
    // The hook linked into its project, in a project beside (with core.hooksPath set, git would not look in .git/hooks).
    const service = join(project, 'service');
    execFileSync('git', ['init', '-q', service], { env: gitEnv });
    mkdirSync(join(service, 'scripts', 'hooks'), { recursive: true });
    writeFileSync(join(service, 'scripts', 'hooks', 'post-commit'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    symlinkSync('../../scripts/hooks/post-commit', join(service, '.git', 'hooks', 'post-commit'));
    const { client } = await stdioAgent(b, 'aside-agent', { clients, cwd: project });
    const made = await ok(client, 'terminal_create', {});
    expect(made.sandbox.readOnly).toContain(join(project, 'config', 'git', 'repo.gitconfig'));
    // Each layout's move-aside plants a command of its own, so a failure names the layout.
    const planted = (name: string) => join(b.home, `planted-${name}`);
    const script = (name: string) => `'#!/bin/sh\\ntouch ${planted(name)}\\n'`;
    const moves = [
      `mv config config.aside && mkdir -p config/git && printf '[core]\\n\\tfsmonitor = touch ${planted('include')}\\n' > config/git/repo.gitconfig`,
      `mv tools tools.aside && mkdir -p tools/git-hooks && printf ${script('hooks-path')} > tools/git-hooks/pre-commit && chmod +x tools/git-hooks/pre-commit`,
      `cd service && mv scripts scripts.aside && mkdir -p scripts/hooks && printf ${script('linked-hook')} > scripts/hooks/post-commit && chmod +x scripts/hooks/post-commit; cd ..`,
    ];
    for (const move of moves) await ok(client, 'terminal_run', { id: made.id, command: `${move}; echo tried` });
    // The developer's own git, outside: a status and a commit.
    for (const dir of [project, service]) {
      git(dir, 'status', '--short');
      writeFileSync(join(dir, 'file.txt'), 'work\n');
      git(dir, 'add', 'file.txt');
      git(dir, 'commit', '-qm', 'work');
    }
    expect(['include', 'hooks-path', 'linked-hook'].filter((name) => existsSync(planted(name)))).toEqual([]);
    // The project stays the agent's to work in: other directories move, and commits inside work.
    expect((await ok(client, 'terminal_run', { id: made.id, command: 'mkdir -p src/a && mv src src2 && echo y > src2/a/f && git add src2 && git -c user.name=a -c user.email=a@b commit -qm inside && echo committed' })).output).toContain('committed');
  });
});

describe.skipIf(!available)('a sandboxed shell in a project whose git config continues a value on the next line', () => {
  it("cannot write the included file git reads (`path = ../con\\` then `fig.inc`), whose core.fsmonitor the developer's next git status runs", async () => {
    const b = box();
    const project = b.workspace;
    const gitEnv = { ...process.env, HOME: b.home, GIT_CONFIG_NOSYSTEM: '1' };
    execFileSync('git', ['init', '-q', project], { env: gitEnv });
    writeFileSync(join(project, 'config.inc'), '[user]\n\tname = dev\n');
    writeFileSync(join(project, '.git', 'config'), `${readFileSync(join(project, '.git', 'config'), 'utf8')}[include]\n\tpath = ../con\\\nfig.inc\n`);
    expect(execFileSync('git', ['-C', project, 'config', 'user.name'], { env: gitEnv, encoding: 'utf8' }).trim()).toBe('dev');
    const { client } = await stdioAgent(b, 'continuing-agent', { clients, cwd: project });
    const made = await ok(client, 'terminal_create', {});
    const planted = join(b.home, 'planted');
    await ok(client, 'terminal_run', { id: made.id, command: `printf '[core]\\n\\tfsmonitor = touch ${planted}\\n' >> config.inc; echo tried` });
    execFileSync('git', ['-C', project, 'status', '--short'], { env: gitEnv });
    expect(existsSync(planted)).toBe(false);
    expect(readFileSync(join(project, 'config.inc'), 'utf8')).toBe('[user]\n\tname = dev\n');
  });
});

describe.skipIf(!available)('a sandboxed shell in a sparse checkout (extensions.worktreeConfig, .git/config.worktree)', () => {
  it("cannot write .git/config.worktree, which git reads as it reads .git/config, nor what it includes: the developer's next git status ran a core.fsmonitor written there", async () => {
    const b = box();
    const project = b.workspace;
    const gitEnv = { ...process.env, HOME: b.home, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' };
    const git = (...args: string[]) => execFileSync('git', ['-C', project, ...args], { env: gitEnv, encoding: 'utf8' });
    execFileSync('git', ['init', '-q', project], { env: gitEnv });
    for (const dir of ['app', 'docs']) {
      mkdirSync(join(project, dir));
      writeFileSync(join(project, dir, 'file'), `${dir}\n`);
    }
    git('add', '.');
    git('commit', '-qm', 'two directories');
    // `git sparse-checkout set` turns extensions.worktreeConfig on and writes its settings in .git/config.worktree.
    git('sparse-checkout', 'set', 'app');
    writeFileSync(join(project, 'worktree.inc'), '[user]\n\tname = dev\n');
    git('config', '--worktree', '--add', 'include.path', '../worktree.inc');
    const worktreeConfig = join(project, '.git', 'config.worktree');
    const before = readFileSync(worktreeConfig, 'utf8');
    const { client } = await stdioAgent(b, 'sparse-agent', { clients, cwd: project });
    const made = await ok(client, 'terminal_create', {});
    const planted = (name: string) => join(b.home, `planted-${name}`);
    for (const [file, name] of [['.git/config.worktree', 'worktree'], ['worktree.inc', 'include']] as const) {
      await ok(client, 'terminal_run', { id: made.id, command: `printf '[core]\\n\\tfsmonitor = touch ${planted(name)}\\n' >> ${file}; echo tried` });
    }
    git('status', '--short');
    expect(['worktree', 'include'].filter((name) => existsSync(planted(name)))).toEqual([]);
    expect(readFileSync(worktreeConfig, 'utf8')).toBe(before);
    expect(readFileSync(join(project, 'worktree.inc'), 'utf8')).toBe('[user]\n\tname = dev\n');
    // Commits inside still work.
    expect((await ok(client, 'terminal_run', { id: made.id, command: 'echo y > app/new && git add app/new && git -c user.name=a -c user.email=a@b commit -qm inside && echo committed' })).output).toContain('committed');
  });
});

describe.skipIf(!available)("a sandboxed shell where the developer's git config lives at $XDG_CONFIG_HOME/git/config", () => {
  it('cannot write the hooks directory its core.hooksPath names in the project, which the next commit runs', async () => {
    const b = box();
    // The host and the developer's git both see XDG_CONFIG_HOME; git reads $XDG_CONFIG_HOME/git/config as the global config.
    const configHome = join(b.home, 'xdg');
    b.env.XDG_CONFIG_HOME = configHome;
    mkdirSync(join(configHome, 'git'), { recursive: true });
    writeFileSync(join(configHome, 'git', 'config'), '[core]\n\thooksPath = .githooks\n');
    const project = b.workspace;
    const gitEnv = { ...process.env, HOME: b.home, XDG_CONFIG_HOME: configHome, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'a', GIT_AUTHOR_EMAIL: 'a@b', GIT_COMMITTER_NAME: 'a', GIT_COMMITTER_EMAIL: 'a@b' };
    execFileSync('git', ['init', '-q', project], { env: gitEnv });
    mkdirSync(join(project, '.githooks'));
    writeFileSync(join(project, '.githooks', 'pre-commit'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    expect(execFileSync('git', ['-C', project, 'config', 'core.hooksPath'], { env: gitEnv, encoding: 'utf8' }).trim()).toBe('.githooks');
    const { client } = await stdioAgent(b, 'xdg-agent', { clients, cwd: project });
    const made = await ok(client, 'terminal_create', {});
    const planted = join(b.home, 'planted');
    await ok(client, 'terminal_run', { id: made.id, command: `printf '#!/bin/sh\\ntouch ${planted}\\n' > .githooks/pre-commit; echo tried` });
    writeFileSync(join(project, 'file.txt'), 'work\n');
    execFileSync('git', ['-C', project, 'add', 'file.txt'], { env: gitEnv });
    execFileSync('git', ['-C', project, 'commit', '-qm', 'work'], { env: gitEnv });
    expect(existsSync(planted)).toBe(false);
  });
});

describe.skipIf(!available)("a sandboxed shell in a project the developer's ~/.gitconfig includes a file from", () => {
  it("cannot write that file (`includeIf \"gitdir:PROJECT/\"` path = PROJECT/.gitconfig.local), whose core.fsmonitor the next git status runs", async () => {
    const b = box();
    const project = b.workspace;
    const local = join(project, '.gitconfig.local');
    writeFileSync(local, '[user]\n\tname = dev\n');
    writeFileSync(join(b.home, '.gitconfig'), `[includeIf "gitdir:${project}/"]\n\tpath = ${local}\n`);
    const gitEnv = { ...process.env, HOME: b.home, GIT_CONFIG_NOSYSTEM: '1' };
    execFileSync('git', ['init', '-q', project], { env: gitEnv });
    expect(execFileSync('git', ['-C', project, 'config', 'user.name'], { env: gitEnv, encoding: 'utf8' }).trim()).toBe('dev');
    const { client } = await stdioAgent(b, 'global-include-agent', { clients, cwd: project });
    const made = await ok(client, 'terminal_create', {});
    const planted = join(b.home, 'planted');
    await ok(client, 'terminal_run', { id: made.id, command: `printf '[core]\\n\\tfsmonitor = touch ${planted}\\n' >> .gitconfig.local; echo tried` });
    execFileSync('git', ['-C', project, 'status', '--short'], { env: gitEnv });
    expect(existsSync(planted)).toBe(false);
    expect(readFileSync(local, 'utf8')).toBe('[user]\n\tname = dev\n');
  });
});

describe.skipIf(!available)('a sandboxed shell that fills a directory the fence keeps read-only with links into the workspace', () => {
  it("leaves the next shell a read-only workspace rather than a fence that binds each link's target and pins each directory above it", async () => {
    const b = box();
    const project = b.workspace;
    const { client } = await stdioAgent(b, 'linking-agent', { clients, cwd: project });
    const first = await ok(client, 'terminal_create', {});
    // .claude did not exist as the first shell started, so it is that shell's to fill: 300 links, each to a file two
    // directories deep of its own.
    const fill = 'mkdir .claude && for i in $(seq 300); do mkdir -p d$i/x && touch d$i/x/f && ln -s ../d$i/x/f .claude/l$i; done && echo filled';
    expect((await ok(client, 'terminal_run', { id: first.id, command: fill, timeout_ms: 120_000 })).output).toContain('filled');
    const next = await ok(client, 'terminal_create', {});
    expect(next.sandbox.readOnly).toContain(project);
    const write = await ok(client, 'terminal_run', { id: next.id, command: 'echo x > new-file' });
    expect(write.exit_code).not.toBe(0);
  });
});

describe.skipIf(!available)('a sandboxed shell that makes a project whose git config includes itself through links', () => {
  it("leaves the next shell a read-only workspace, its start not held reading 3^10 paths of one config on the host's loop", async () => {
    const b = box();
    const project = b.workspace;
    const { client } = await stdioAgent(b, 'including-agent', { clients, cwd: project });
    const first = await ok(client, 'terminal_create', {});
    // evil/.git is the first shell's own; its config includes l1/c to l3/c, each lN a link to .git itself, and c is the
    // config again: ten deep, 3^10 distinct paths (about 30 s of the host's loop before; 4 links, minutes).
    const plant = "mkdir -p evil/.git && cd evil/.git && ln -s . l1 && ln -s . l2 && ln -s . l3 && printf '[include]\\n\\tpath = l1/c\\n\\tpath = l2/c\\n\\tpath = l3/c\\n' > c && cp c config && cd ../.. && echo planted";
    expect((await ok(client, 'terminal_run', { id: first.id, command: plant })).output).toContain('planted');
    const next = await ok(client, 'terminal_create', {});
    expect(next.sandbox.readOnly).toContain(project);
    expect((await ok(client, 'terminal_run', { id: next.id, command: 'echo x > new-file' })).exit_code).not.toBe(0);
  });
});

describe.skipIf(!available)('a workspace whose .vscode is a link to a directory outside it', () => {
  it('keeps the link: a sandboxed shell cannot put a .vscode of its own in its place', async () => {
    const b = box();
    const project = b.workspace;
    const shared = join(b.home, 'shared-vscode');
    mkdirSync(shared);
    writeFileSync(join(shared, 'settings.json'), '{}\n');
    symlinkSync(shared, join(project, '.vscode'));
    const { client } = await stdioAgent(b, 'relinking-agent', { clients, cwd: project });
    const made = await ok(client, 'terminal_create', {});
    // The agent is told why it may write nothing there, before a write fails with "Read-only file system".
    expect(made.sandbox.readOnlyWhy).toBe(`${join(realpathSync(project), '.vscode')}, or a directory on the way to it, is a symbolic link, which cannot be fenced`);
    expect(made.sandbox.writable).not.toContain(realpathSync(project));
    expect(made.sandbox.readOnly).toEqual([realpathSync(project)]);
    await ok(client, 'terminal_run', { id: made.id, command: "rm .vscode; mkdir .vscode; echo '{\"tasks\":[]}' > .vscode/tasks.json; echo tried" });
    expect(existsSync(join(project, '.vscode', 'tasks.json'))).toBe(false);
  });
});

describe.skipIf(!available)("a sandboxed shell's terminal_create env", () => {
  it('runs nothing outside the sandbox through OPTIND, an integer variable to the bash that starts bubblewrap (its value is arithmetic, a[$(cmd)] runs cmd)', async () => {
    const b = box();
    const { client } = await stdioAgent(b, 'optind-agent', { clients, cwd: b.workspace });
    const marker = join(b.home, 'ran-outside');
    const value = `a[$(touch ${marker})]`;
    const made = await ok(client, 'terminal_create', { env: { OPTIND: value, OPTERR: value } });
    expect(made.sandbox.profile).toBe('workspace');
    // The sandboxed shell cannot write HOME: a marker there was made outside.
    expect((await ok(client, 'terminal_run', { id: made.id, command: `touch ${marker}` })).exit_code).not.toBe(0);
    expect(existsSync(marker)).toBe(false);
  });
});

describe.skipIf(!available)('an embedded core (`ptydeck mcp --embedded`) applies the host\'s policy to its agent\'s shells', () => {
  it('sandboxes them by default, keeps its agent\'s environment\'s injection variables out, and records their commands for terminal_history', async () => {
    const b = box({ PROMPT_COMMAND: 'echo INJECTED-PROMPT', BASH_ENV: '/nonexistent/injected-env', PYTHONSTARTUP: '/nonexistent/injected.py' });
    const { client, stderr } = await stdioAgent(b, 'embedded-agent', { clients, cwd: b.workspace, args: ['--embedded'] });
    const made = await ok(client, 'terminal_create', {});
    expect(stderr()).toContain('running an embedded core');
    expect(made.sandbox).toMatchObject({ profile: 'workspace', network: true });
    const id = made.id as string;
    const run = (command: string) => ok(client, 'terminal_run', { id, command });
    expect((await run('cat ~/.ssh/id_test')).output).not.toContain('PRIVATE-KEY-MATERIAL');
    expect(await run(`ls -A ${b.stateDir}`)).toMatchObject({ exit_code: 0, output: '' });
    const line = 'echo "env=${BASH_ENV-none} python=${PYTHONSTARTUP-none} prompt=$PROMPT_COMMAND"';
    const printed = (await run(line)).output;
    expect(printed).toContain('env=none python=none prompt=');
    expect(printed).not.toContain('INJECTED-PROMPT');
    const history = await ok(client, 'terminal_history', { pattern: '^echo "env=' });
    expect(history.commands).toEqual([expect.objectContaining({ command: line, exit_code: 0 })]);
    // Still no host: nothing listens for this core, and no panel can reach its sessions.
    expect(existsSync(join(b.stateDir, 'server.json'))).toBe(false);
  });

  it('gives --sandbox PROFILE, else config.json\'s profile for the agent\'s name', async () => {
    const b = box();
    mkdirSync(join(b.home, 'config'), { mode: 0o700 });
    writeFileSync(join(b.home, 'config', 'config.json'), JSON.stringify({ sandbox: { agents: { 'trusted-embedded': 'off' } } }));
    const strict = await stdioAgent(b, 'strict-embedded', { clients, cwd: b.workspace, args: ['--embedded', '--sandbox', 'workspace-offline'] });
    expect((await ok(strict.client, 'terminal_create', {})).sandbox).toMatchObject({ profile: 'workspace-offline', network: false });
    const looser = await call(strict.client, 'terminal_create', { sandbox: 'off' });
    expect(looser.content[0]?.text).toMatch(/looser than your profile "workspace-offline"/);
    const trusted = await stdioAgent(b, 'trusted-embedded', { clients, cwd: b.workspace, args: ['--embedded'] });
    const made = await ok(trusted.client, 'terminal_create', {});
    expect(made.sandbox).toMatchObject({ profile: 'off' });
    expect((await ok(trusted.client, 'terminal_run', { id: made.id, command: 'cat ~/.ssh/id_test' })).output).toContain('PRIVATE-KEY-MATERIAL');
  });
});

describe('without bubblewrap', () => {
  it('an explicit profile fails the create with the fix; the default runs unsandboxed and says so', async () => {
    const b = box();
    b.env.PATH = pathWithoutBwrap(b.home);
    const strict = await stdioAgent(b, 'strict-agent', { clients, cwd: b.workspace, args: ['--sandbox', 'workspace'] });
    const refused = await call(strict.client, 'terminal_create', {});
    expect(refused.isError).toBe(true);
    expect(refused.content[0]?.text).toMatch(/cannot start here: bubblewrap \(bwrap\) is not installed.*apt install bubblewrap.*Nothing was started/);

    const relaxed = await stdioAgent(b, 'default-agent', { clients, cwd: b.workspace });
    const made = await ok(relaxed.client, 'terminal_create', {});
    expect(made.sandbox).toMatchObject({ profile: 'off', unavailable: expect.stringMatching(/not installed/) });
    expect((await ok(relaxed.client, 'terminal_run', { id: made.id, command: 'cat ~/.ssh/id_test' })).output).toContain('PRIVATE-KEY-MATERIAL');
  });
});

/** A process a ptydeck session started (it carries a session id), as opposed to the host. */
function isSessionProcess(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').includes('PTYDECK_SESSION_ID=');
  } catch {
    return false;
  }
}
