import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isolatedEnv } from '../testing/isolated-env.js';
import { bwrapArgs, isAtLeastAsStrict, sandboxAvailability, sandboxPolicy, type SandboxPolicy } from './index.js';

// Real bubblewrap and real bash: what a sandboxed shell can and cannot reach.
const available = sandboxAvailability('workspace');
const env = isolatedEnv();
const home = env.HOME!;
const stateDir = join(home, '.local', 'state', 'ptydeck');
const configDir = join(home, '.config', 'ptydeck');
const workspace = mkdtempSync(join(tmpdir(), 'ptydeck-sandbox-ws-'));
let listener: Server;
let port: number;

function policy(profile: 'workspace' | 'workspace-offline' = 'workspace'): SandboxPolicy {
  return sandboxPolicy({ profile, workspace, home, ptydeckDirs: [stateDir, configDir] });
}

/** Runs `script` in bash inside the sandbox; its exit code and what it printed. Async, so this process's listener can answer. */
function inside(script: string, sandbox = policy()): Promise<{ status: number | null; out: string }> {
  if (!available.ok) throw new Error(available.reason);
  const args = bwrapArgs(sandbox, { home, cwd: workspace });
  return new Promise((resolve) => {
    execFile(available.bwrap, [...args, '--', 'bash', '--norc', '--noprofile', '-c', script], { env: env as NodeJS.ProcessEnv, encoding: 'utf8', timeout: 30_000 }, (error, stdout, stderr) => {
      const status = error ? (typeof error.code === 'number' ? error.code : null) : 0;
      resolve({ status, out: `${stdout}${stderr}` });
    });
  });
}

beforeAll(async () => {
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_test'), 'PRIVATE KEY\n');
  writeFileSync(join(home, '.netrc'), 'machine example.com password hunter2\n');
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
    const netrc = await inside('cat ~/.netrc');
    expect(netrc.status).not.toBe(0);
    expect(netrc.out).not.toMatch(/hunter2/);
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

  it('refuses a workspace inside a hidden path', async () => {
    expect(() => sandboxPolicy({ profile: 'workspace', workspace: join(home, '.ssh'), home, ptydeckDirs: [] })).toThrow(/may not see/);
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
