import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileTempDir, isolatedEnv } from '../testing/isolated-env.js';
import { secretNames } from './secret-env.js';
import { bwrapArgs, DEFAULT_HIDDEN, removeEmptyFile, isAtLeastAsStrict, readSandboxConfig, sandboxAvailability, sandboxContext, sandboxPolicy, type SandboxPolicy } from './index.js';

// Real bubblewrap and real bash: what a sandboxed shell can and cannot reach.
const available = sandboxAvailability('workspace');
const env = isolatedEnv();
const home = env.HOME!;
const stateDir = join(home, '.local', 'state', 'ptydeck');
const configDir = join(home, '.config', 'ptydeck');
const workspace = fileTempDir('ptydeck-sandbox-ws-');
let listener: Server;
let port: number;

function policy(profile: 'workspace' | 'workspace-offline' = 'workspace'): SandboxPolicy {
  return sandboxPolicy({ profile, workspace, home, ptydeckDirs: [stateDir, configDir] });
}

/**
 * Runs `script` in bash inside the sandbox; its exit code and what it printed.
 * Async, so this process's listener can answer. `as` runs bubblewrap as
 * another user (setpriv), with that user's HOME.
 */
function inside(script: string, sandbox = policy(), as?: { uid: number; gid: number; home: string }): Promise<{ status: number | null; out: string }> {
  if (!available.ok) throw new Error(available.reason);
  const args = bwrapArgs(sandbox, { home: as?.home ?? home, cwd: sandbox.workspace });
  const command = [available.bwrap, ...args, '--', 'bash', '--norc', '--noprofile', '-c', script];
  const [file, ...argv] = as ? ['setpriv', `--reuid=${as.uid}`, `--regid=${as.gid}`, '--init-groups', '--', ...command] : command;
  return new Promise((resolve) => {
    execFile(file!, argv, { env: (as ? { ...env, HOME: as.home } : env) as NodeJS.ProcessEnv, encoding: 'utf8', timeout: 30_000 }, (error, stdout, stderr) => {
      const status = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      resolve({ status, out: `${stdout}${stderr}` });
    });
  });
}

beforeAll(async () => {
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_test'), 'PRIVATE KEY\n');
  writeFileSync(join(home, '.netrc'), 'machine example.com password hunter2\n');
  writeFileSync(join(home, '.git-credentials'), 'https://dev:ghp_GITTOKEN@github.com\n');
  writeFileSync(join(home, '.npmrc'), '//registry.npmjs.org/:_authToken=npm_NPMTOKEN\n');
  writeFileSync(join(home, '.bash_history'), 'export AWS_SECRET_ACCESS_KEY=HISTORYSECRET\n');
  mkdirSync(join(stateDir, 'sessions'), { recursive: true });
  writeFileSync(join(stateDir, 'server.json'), '{"token":"secret"}\n');
  mkdirSync(configDir, { recursive: true });
  writeFileSync(join(configDir, 'agents.json'), '{"agents":[]}\n');
  writeFileSync(join(home, '.bashrc'), 'PS1="$ "\n');
  listener = createServer((socket) => socket.end('hello from the host\n'));
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as { port: number }).port;
});

afterAll(() => {
  listener?.close();
  // bwrapArgs made the empty file sandboxes lay over hidden files, which the host removes when it stops; there is no host here.
  removeEmptyFile();
  rmSync(home, { recursive: true, force: true });
  rmSync(workspace, { recursive: true, force: true });
});

describe.skipIf(!available.ok)('a workspace sandbox (real bubblewrap)', () => {
  it('writes in the workspace and its private /tmp, and nowhere else', async () => {
    expect(await inside('echo made > made.txt && cat made.txt && echo t > /tmp/t && cat /tmp/t')).toEqual({ status: 0, out: 'made\nt\n' });
    expect(readFileSync(join(workspace, 'made.txt'), 'utf8')).toBe('made\n');
    expect((await inside(`touch "$HOME/planted"`)).status).not.toBe(0);
    expect((await inside('touch /etc/planted')).out).toMatch(/Read-only file system/);
    // HOME is under the host's /tmp here, which the sandbox replaces: it stays readable all the same.
    expect(await inside('cat "$HOME/.bashrc"')).toEqual({ status: 0, out: 'PS1="$ "\n' });
  });

  it('hides keys, credentials and ptydeck\'s own directories', async () => {
    for (const path of ['~/.ssh/id_test', `${stateDir}/server.json`, `${configDir}/agents.json`]) {
      const read = await inside(`cat ${path}`);
      expect(read.status, path).not.toBe(0);
      expect(read.out, path).toMatch(/No such file/);
    }
    expect((await inside(`ls ${stateDir}/sessions`)).status).not.toBe(0);
    // Hidden files read as empty, not as an error (Permission denied), tokens and history alike; none can be written.
    expect(await inside('cat ~/.netrc ~/.git-credentials ~/.npmrc ~/.bash_history; echo end')).toEqual({ status: 0, out: 'end\n' });
    expect((await inside('echo planted > ~/.npmrc')).status).not.toBe(0);
  });

  it('keeps package caches writable', async () => {
    expect((await inside('touch ~/.npm/cached && echo ok')).out).toBe('ok\n');
  });

  it('sees no process outside it', async () => {
    const seen = await inside(`test -e /proc/${process.pid} && echo visible || echo hidden`);
    expect(seen.out).toBe('hidden\n');
  });

  it('reaches a listener on the host\'s loopback with the network on, and not offline', async () => {
    const script = `exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`;
    expect((await inside(script)).out).toBe('hello from the host\n');
    const offline = await inside(script, policy('workspace-offline'));
    expect(offline.status).not.toBe(0);
    expect(offline.out).toMatch(/Connection refused|Network is unreachable/);
  });

  it("hides the system's privileged Unix sockets: one on the read-only root is connectable until hidden, in either profile", async () => {
    // A stand-in for /run/docker.sock outside the private /tmp (HOME here is bound in read-only).
    const socketDir = mkdtempSync(join(home, 'run-'));
    const socketPath = join(socketDir, 'docker.sock');
    const daemon = createServer((socket) => socket.end('daemon\n'));
    await new Promise<void>((resolve) => daemon.listen(socketPath, resolve));
    try {
      const connect = `python3 -c 'import socket, sys; c = socket.socket(socket.AF_UNIX); c.connect(sys.argv[1]); print(c.recv(16).decode(), end="")' ${socketPath}`;
      expect((await inside(connect, policy('workspace-offline'))).out).toBe('daemon\n');
      const hidden = (profile: 'workspace' | 'workspace-offline') =>
        sandboxPolicy({ profile, workspace, home, ptydeckDirs: [stateDir, configDir], hidden: [...DEFAULT_HIDDEN, socketPath] });
      for (const profile of ['workspace', 'workspace-offline'] as const) {
        const refused = await inside(connect, hidden(profile));
        expect(refused.status, profile).not.toBe(0);
        // Refused, or (without root's capabilities, over the read-only empty file) not permitted: never the daemon.
        expect(refused.out, profile).toMatch(/ConnectionRefusedError|PermissionError/);
      }
    } finally {
      daemon.close();
    }
    expect(DEFAULT_HIDDEN).toEqual(expect.arrayContaining(['/run/docker.sock', '/var/run/docker.sock', '/run/dbus/system_bus_socket', '/run/libvirt', '/run/screen']));
    // A Jupyter kernel's connection file (its key and ports): with the network on, reading it is running code in it.
    expect(DEFAULT_HIDDEN).toContain('.local/share/jupyter/runtime');
  });

  it("shows a default entry config.json's `unhide` names (~/.npmrc, for a private registry), and keeps every other one and ptydeck's own directories hidden", async () => {
    const ownConfig = mkdtempSync(join(home, 'config-'));
    writeFileSync(join(ownConfig, 'config.json'), JSON.stringify({ sandbox: { unhide: ['.npmrc'] } }));
    const { hidden, ptydeckDirs } = sandboxContext({ stateDir, configDir: ownConfig, config: readSandboxConfig(ownConfig) });
    const unhidden = sandboxPolicy({ profile: 'workspace', workspace, home, ptydeckDirs, hidden });
    expect(await inside('cat ~/.npmrc', unhidden)).toEqual({ status: 0, out: '//registry.npmjs.org/:_authToken=npm_NPMTOKEN\n' });
    // Read-only all the same, and nothing else came back.
    expect((await inside('echo planted > ~/.npmrc', unhidden)).status).not.toBe(0);
    expect(await inside('cat ~/.netrc ~/.git-credentials ~/.bash_history; echo end', unhidden)).toEqual({ status: 0, out: 'end\n' });
    for (const path of ['~/.ssh/id_test', `${stateDir}/server.json`, `${ownConfig}/config.json`]) expect((await inside(`cat ${path}`, unhidden)).out, path).toMatch(/No such file/);
    // What `hide` names stays hidden even if `unhide` names it too.
    writeFileSync(join(ownConfig, 'config.json'), JSON.stringify({ sandbox: { unhide: ['.npmrc'], hide: ['.npmrc'] } }));
    const both = sandboxContext({ stateDir, configDir: ownConfig, config: readSandboxConfig(ownConfig) });
    expect(await inside('cat ~/.npmrc; echo end', sandboxPolicy({ profile: 'workspace', workspace, home, ptydeckDirs: both.ptydeckDirs, hidden: both.hidden }))).toEqual({ status: 0, out: 'end\n' });
  });

  it('refuses an `unhide` entry that is not in the built-in hidden list, ptydeck\'s own directories included', () => {
    const ownConfig = mkdtempSync(join(home, 'config-'));
    for (const entry of ['~/.npmrc', '.npmrc/', join(home, '.npmrc'), stateDir, '.config/ptydeck']) {
      writeFileSync(join(ownConfig, 'config.json'), JSON.stringify({ sandbox: { unhide: [entry] } }));
      expect(() => readSandboxConfig(ownConfig), entry).toThrow(`unhide names ${JSON.stringify(entry)}, which is not in the built-in hidden list`);
    }
  });

  it('hides a linked secret where the link points, keeps a dangling link as it is, and leaves out what is missing', () => {
    const own = mkdtempSync(join(home, 'links-'));
    const secrets = fileTempDir('ptydeck-sandbox-secrets-');
    try {
      symlinkSync(secrets, join(own, '.aws'));
      symlinkSync(join(secrets, 'gone'), join(own, '.netrc'));
      const hidden = sandboxPolicy({ profile: 'workspace', workspace, home: own, ptydeckDirs: [join(own, 'no-state')] }).hidden;
      expect(hidden).toEqual([realpathSync(secrets), join(realpathSync(own), '.netrc')]);
    } finally {
      rmSync(secrets, { recursive: true, force: true });
    }
  });

  it('refuses a workspace inside a hidden path', async () => {
    expect(() => sandboxPolicy({ profile: 'workspace', workspace: join(home, '.ssh'), home, ptydeckDirs: [] })).toThrow(/may not see/);
  });

  it("keeps read-only a workspace that holds ptydeck's own directories, even ones not made yet, and through a link", () => {
    const outside = fileTempDir('ptydeck-xdg-');
    try {
      // XDG_CONFIG_HOME=<outside>/config: ptydeck's config directory would be <outside>/config/ptydeck, not made yet.
      mkdirSync(join(outside, 'config'));
      symlinkSync(join(outside, 'config'), join(outside, 'linked'));
      for (const configDir of [join(outside, 'config', 'ptydeck'), join(outside, 'linked', 'ptydeck')]) {
        for (const cwd of [outside, join(outside, 'config')]) {
          const fenced = sandboxPolicy({ profile: 'workspace', workspace: cwd, home, ptydeckDirs: [stateDir, configDir] });
          expect(fenced.writable, `${cwd} ${configDir}`).not.toContain(realpathSync(cwd));
          expect(fenced.readOnlyWhy).toBe("it holds ptydeck's own directories");
        }
      }
      // A sibling is the agent's to write.
      mkdirSync(join(outside, 'project'));
      const sibling = sandboxPolicy({ profile: 'workspace', workspace: join(outside, 'project'), home, ptydeckDirs: [join(outside, 'config', 'ptydeck')] });
      expect(sibling.writable).toContain(realpathSync(join(outside, 'project')));
      expect(sibling.readOnlyWhy).toBeUndefined();
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("keeps read-only a workspace in the system's directories, or at another user's HOME (what root's shell wrote there runs as root, or as that user)", () => {
    const others = readFileSync('/etc/passwd', 'utf8').split('\n').map((line) => line.split(':')[5]).filter((path): path is string => !!path && path.startsWith('/home/') && existsSync(path));
    for (const cwd of ['/etc', '/etc/cron.d', '/usr/local/bin', '/var/spool', '/run', '/opt', ...others].filter((path) => existsSync(path))) {
      const fenced = sandboxPolicy({ profile: 'workspace', workspace: cwd, home, ptydeckDirs: [stateDir, configDir] });
      expect(fenced.writable, cwd).not.toContain(realpathSync(cwd));
      // /run holds a system user's HOME (sshd's /run/sshd): either is the reason the agent is given.
      expect(fenced.readOnlyWhy, cwd).toMatch(others.includes(cwd) ? /^it is or holds a home directory$/ : /^it (lies in the system's directories|is or holds a home directory)$/);
    }
    // HOME itself, and one of its dot-directories.
    expect(sandboxPolicy({ profile: 'workspace', workspace: home, home, ptydeckDirs: [stateDir, configDir] }).readOnlyWhy).toBe('it is or holds a home directory');
    mkdirSync(join(home, '.config'), { recursive: true });
    expect(sandboxPolicy({ profile: 'workspace', workspace: join(home, '.config'), home, ptydeckDirs: [stateDir, configDir] }).readOnlyWhy).toBe("it lies in a home directory's dot-directories");
  });

  it("leaves out a config.json `writable` path that holds HOME or ptydeck's config directory, made or not (a shell would write the config.json that names its sandbox)", () => {
    const config = join(home, '.config');
    mkdirSync(config, { recursive: true });
    const withWritable = sandboxPolicy({ profile: 'workspace', workspace, home, ptydeckDirs: [stateDir, join(config, 'ptydeck-not-made')], writable: [config, home, join(home, '.npm')] });
    expect(withWritable.writable).not.toContain(realpathSync(config));
    expect(withWritable.writable).not.toContain(realpathSync(home));
    expect(withWritable.writable).toContain(realpathSync(join(home, '.npm')));
  });

  it("keeps read-only a workspace a dangling link among HOME's dot-files leads into, but not for a link to / (Wine's z: drive)", () => {
    const own = fileTempDir('ptydeck-links-');
    try {
      const project = join(own, 'dotfiles');
      mkdirSync(project);
      mkdirSync(join(own, '.wine', 'dosdevices'), { recursive: true });
      symlinkSync('/', join(own, '.wine', 'dosdevices', 'z:'));
      const writable = () => sandboxPolicy({ profile: 'workspace', workspace: project, home: own, ptydeckDirs: [] }).writable;
      expect(writable()).toContain(realpathSync(project));
      // ~/.profile leads to a file not made yet: the shell would make it, and your next login shell run it.
      symlinkSync(join(project, 'profile'), join(own, '.profile'));
      expect(writable()).not.toContain(realpathSync(project));
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });

  it('lets a workspace under /var/tmp be written: a temporary directory, as /tmp is', () => {
    const scratch = mkdtempSync('/var/tmp/ptydeck-scratch-');
    try {
      expect(sandboxPolicy({ profile: 'workspace', workspace: scratch, home, ptydeckDirs: [stateDir, configDir] }).writable).toContain(scratch);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

/**
 * The same fences for an unprivileged user, as most developers are: bubblewrap
 * then builds the sandbox in a user namespace, without root's capabilities.
 * Run as root, the test makes a user of its own (useradd) and runs the
 * sandbox as that user; run as anyone else, the tests above already are.
 */
const isRoot = process.getuid?.() === 0;
describe.skipIf(!available.ok || !isRoot)('a workspace sandbox for an unprivileged user (real bubblewrap, user namespaces)', () => {
  const name = `ptydeck-sb-${randomBytes(4).toString('hex')}`;
  let user: { uid: number; gid: number; home: string };
  let userWorkspace: string;
  let userState: string;

  beforeAll(() => {
    const userHome = fileTempDir('ptydeck-sandbox-user-');
    execFileSync('useradd', ['--no-create-home', '--home-dir', userHome, '--shell', '/bin/bash', '--user-group', name]);
    const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
    user = { uid, gid, home: userHome };
    userWorkspace = join(userHome, 'project');
    userState = join(userHome, '.local', 'state', 'ptydeck');
    for (const dir of [userWorkspace, join(userHome, '.ssh'), userState, join(userHome, '.npm'), join(userHome, '.cache', 'pip'), join(userHome, '.cargo', 'registry'), join(userHome, '.cargo', 'git'), ...['npm', 'cache-pip', 'cargo-registry', 'cargo-git'].map((cache) => join(userHome, '.cache', 'ptydeck-sandbox', cache))]) {
      mkdirSync(dir, { recursive: true });
    }
    writeFileSync(join(userHome, '.ssh', 'id_test'), 'USER-PRIVATE-KEY\n', { mode: 0o600 });
    writeFileSync(join(userState, 'server.json'), '{"token":"user-secret"}\n', { mode: 0o600 });
    execFileSync('chown', ['-R', `${uid}:${gid}`, userHome]);
    chmodSync(userHome, 0o700);
  });

  afterAll(() => {
    spawnSync('userdel', [name]);
    if (user) rmSync(user.home, { recursive: true, force: true });
  });

  function userPolicy(profile: 'workspace' | 'workspace-offline' = 'workspace'): SandboxPolicy {
    return sandboxPolicy({ profile, workspace: userWorkspace, home: user.home, ptydeckDirs: [userState] });
  }

  it('runs as that user, writes only its workspace, /tmp and caches, and cannot read its key or ptydeck\'s state', async (context) => {
    const probe = await inside('id -u', userPolicy(), user);
    // Where the kernel allows no unprivileged user namespaces, bubblewrap says so, and this machine cannot run the check.
    if (probe.status !== 0 && /namespace|Operation not permitted|permission/i.test(probe.out)) context.skip(`user namespaces are off for unprivileged users here: ${probe.out.trim()}`);
    expect(probe).toEqual({ status: 0, out: `${user.uid}\n` });
    expect(await inside('echo made > made.txt && touch /tmp/t ~/.npm/cached && cat made.txt', userPolicy(), user)).toEqual({ status: 0, out: 'made\n' });
    expect(statSync(join(userWorkspace, 'made.txt')).uid).toBe(user.uid);
    expect((await inside('touch ~/planted', userPolicy(), user)).status).not.toBe(0);
    expect((await inside('touch /etc/planted', userPolicy(), user)).out).toMatch(/Read-only file system|Permission denied/);
    const key = await inside('cat ~/.ssh/id_test', userPolicy(), user);
    expect(key.status).not.toBe(0);
    expect(key.out).not.toContain('USER-PRIVATE-KEY');
    const state = await inside(`cat ${userState}/server.json`, userPolicy(), user);
    expect(state.status).not.toBe(0);
    expect(state.out).not.toContain('user-secret');
    expect((await inside(`test -e /proc/${process.pid} && echo visible || echo hidden`, userPolicy(), user)).out).toBe('hidden\n');
  });

  it("reaches the host's loopback with the network on, and not offline", async (context) => {
    const script = `exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3`;
    const online = await inside(script, userPolicy(), user);
    if (online.status !== 0 && /namespace|Operation not permitted/i.test(online.out)) context.skip(`user namespaces are off for unprivileged users here: ${online.out.trim()}`);
    expect(online.out).toBe('hello from the host\n');
    const offline = await inside(script, userPolicy('workspace-offline'), user);
    expect(offline.status).not.toBe(0);
    expect(offline.out).toMatch(/Connection refused|Network is unreachable/);
  });
});

describe('profiles', () => {
  it('may be tightened, never loosened', async () => {
    expect(isAtLeastAsStrict('workspace-offline', 'workspace')).toBe(true);
    expect(isAtLeastAsStrict('workspace', 'workspace')).toBe(true);
    expect(isAtLeastAsStrict('off', 'workspace')).toBe(false);
  });

  it('say why bubblewrap is missing and how to fix it', async () => {
    const missing = sandboxAvailability('workspace', '/nonexistent');
    expect(missing).toMatchObject({ ok: false, reason: expect.stringMatching(/not installed/), fix: expect.stringMatching(/apt install bubblewrap/) });
  });
});

describe("credentials in the environment sandboxed shells inherit", () => {
  it("are named for unsetting by a word of their name or a URL's password, except what config.json's keepEnv passes; other variables stay", () => {
    const inherited = {
      GH_TOKEN: 'x', GITHUB_TOKEN: 'x', AWS_SECRET_ACCESS_KEY: 'x', AWS_SESSION_TOKEN: 'x', OPENAI_API_KEY: 'x', NPM_CONFIG__AUTH: 'x',
      PGPASSWORD: 'x', DB_PASSWORD: 'x', AZURE_DEVOPS_EXT_PAT: 'x', DATABASE_URL: 'postgres://u:pw@h/db', REDIS_URL: 'redis://:pw@h:6379',
      HOME: '/home/u', PATH: '/usr/bin', PWD: '/w', OLDPWD: '/', TERM: 'xterm', TOKENIZERS_PARALLELISM: 'false', PTYDECK_SESSION_KEY: 'k',
      HISTCONTROL: 'ignoreboth', KEYMAP: 'us', SORT_KEY: 'name', SITE_URL: 'https://example.com/a:b@c', XAUTHORITY: '/run/x',
    };
    const config = readSandboxConfig(fileTempDir('ptydeck-no-config-'));
    expect(config.keepEnv).toEqual([]);
    expect(secretNames(inherited, config.keepEnv).sort()).toEqual(
      ['AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AZURE_DEVOPS_EXT_PAT', 'DATABASE_URL', 'DB_PASSWORD', 'GH_TOKEN', 'GITHUB_TOKEN', 'NPM_CONFIG__AUTH', 'OPENAI_API_KEY', 'PGPASSWORD', 'REDIS_URL'].sort(),
    );
    expect(secretNames(inherited, ['GH_TOKEN'])).not.toContain('GH_TOKEN');
  });

  it("are named by a token's own shape where the name says nothing (`GH=ghp_...`, `OPENAI=sk-...`); words and ids of that look stay", () => {
    const shaped = {
      GH: `ghp_${'a1'.repeat(18)}`, GHPAT: `github_pat_${'A1_'.repeat(20)}`, LAB: `glpat-${'x'.repeat(20)}`, OPENAI: `sk-proj-${'Ab1'.repeat(10)}`,
      CLAUDE: `sk-ant-api03-${'z'.repeat(40)}`, SLACK: 'xoxb-1234-5678-abcdefghij', AWS_ID: 'AKIAIOSFODNN7EXAMPLE', NPM: `npm_${'n'.repeat(36)}`,
      HF: `hf_${'h'.repeat(34)}`, GOOGLE: `AIza${'g'.repeat(35)}`, STRIPE: `sk_live_${'s'.repeat(24)}`, JWT: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sig',
      DEPLOY: '-----BEGIN OPENSSH PRIVATE KEY-----\nb3Bl\n-----END OPENSSH PRIVATE KEY-----\n',
    };
    const plain = { GHP: 'ghp_short', SK: 'sk-x', EDITOR: 'vim', LANG: 'en_US.UTF-8', HOSTNAME: 'skylake-box', LS_COLORS: 'rs=0:di=01;34', AKIA: 'AKIA' };
    expect(secretNames({ ...shaped, ...plain }).sort()).toEqual(Object.keys(shaped).sort());
    expect(secretNames(shaped, ['GH'])).not.toContain('GH');
  });
});
