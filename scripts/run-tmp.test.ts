import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileTempDir, isolatedEnv, removeFileTempDirs } from '../packages/core/src/testing/isolated-env.js';
import { controlPath } from '../packages/core/src/remote/ssh-control.js';
import { hostSandbox, isAlive } from '../packages/core/src/testing/host-sandbox.js';
import { until } from '../packages/core/src/testing/poll-until.js';
import { closeRunTmp, leftovers, openRunTmp } from './run-tmp.mjs';

// `npm test` leaves the developer's /tmp as it found it: the run's temporary directory (run-tmp.mjs) holds
// everything its tests make, and goes with the run.
describe("a test run's temporary directory", () => {
  it("is every test's TMPDIR and holds its HOME, in the developer's temporary directory", () => {
    const root = process.env.PTYDECK_RUN_TMP;
    expect(root).toBeDefined();
    expect(basename(root!)).toMatch(/^ptydeck-run-[A-Za-z0-9]{6}$/);
    expect(tmpdir()).toBe(root);
    expect(relative(root!, process.env.HOME!)).toBe('home');
    // What a test makes with mkdtemp, and what its shells make with mktemp, lands in it.
    expect(dirname(fileTempDir('ptydeck-run-test-'))).toBe(root);
    expect(dirname(isolatedEnv().HOME!)).toBe(root);
  });

  it("is short enough for the sockets tests make under it: ssh's control socket in a host sandbox's state directory", () => {
    // A socket's path fits 108 bytes: ssh-control.ts shares no connection past 90 (ssh binds a longer name
    // first), and remote-ssh.test.ts checks that the remote's connection is shared.
    const socket = controlPath(hostSandbox().stateDir, 'ssh', 'box');
    expect(socket).toBeDefined();
    expect(dirname(dirname(dirname(dirname(socket!))))).toBe(tmpdir());
  });

  it('goes whole when the run ends, with a process the run left writing into it', async () => {
    const run = openRunTmp();
    mkdirSync(join(run.root, 'ptydeck-left-abcdef'));
    expect([...leftovers(run.root)]).toEqual([['ptydeck-left', 1]]);
    // A host a failed test could not reap, detached as a host is (its parent gone): it carries the run's TMPDIR
    // and keeps making files there, recreating the directory by its full path.
    const starter = spawn('sh', ['-c', '(while :; do mkdir -p "$TMPDIR/busy"; : > "$TMPDIR/busy/f"; done) >/dev/null 2>&1 & echo $!'], { env: { ...process.env, ...run.env }, stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    starter.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await new Promise((resolve) => starter.once('close', resolve));
    const writer = Number(out.trim());
    await until(() => existsSync(join(run.root, 'busy')), 'the writer writes');
    expect(closeRunTmp(run.root).killed.map(({ pid }) => pid)).toContain(writer);
    await until(() => !isAlive(writer), 'the writer is gone');
    expect(existsSync(run.root)).toBe(false);
  });

  // What a remote test that timed out, or a worker that was ended, leaves (testing/ssh-server.ts): sshd, whose title
  // overwrites the environment /proc shows (here a stand-in named sshd that names the run's directory on its command
  // line and has no TMPDIR), and its user, whose processes (here a detached sleep, as a remote host outlives its ssh session)
  // carry none of the run's environment, and whom userdel refuses while one runs.
  it.runIf(process.geteuid?.() === 0)("ends sshd and removes its user, with the user's processes, when the run ends", async () => {
    const run = openRunTmp();
    const name = `ptdrt${randomBytes(3).toString('hex')}`;
    const dir = join(run.root, 'ptydeck-sshd-abcdef');
    const home = join(dir, 'home');
    mkdirSync(home, { recursive: true });
    writeFileSync(join(dir, 'sshd.log'), '');
    execFileSync('useradd', ['-M', '-d', home, '-s', '/bin/sh', '-p', '*', name]);
    const left: number[] = [];
    try {
      const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
      const env = { PATH: process.env.PATH };
      // Detached as sshd is from a worker that is gone: not a child of this process, which the run's end leaves alone.
      const sshd = Number(execFileSync('bash', ['-c', '(exec -a sshd tail -f "$1") >/dev/null 2>&1 & echo $!', 'bash', join(dir, 'sshd.log')], { env, encoding: 'utf8' }).trim());
      const remote = Number(execFileSync('sh', ['-c', 'sleep 1000 >/dev/null 2>&1 & echo $!'], { env, uid, gid: uid, encoding: 'utf8' }).trim());
      left.push(sshd, remote);
      await until(() => isAlive(sshd) && isAlive(remote), 'both run');
      const { killed, users } = closeRunTmp(run.root);
      expect(killed.map(({ pid }) => pid)).toContain(sshd);
      expect(users).toEqual([name]);
      expect(readFileSync('/etc/passwd', 'utf8')).not.toMatch(new RegExp(`^${name}:`, 'm'));
      await until(() => !isAlive(sshd) && !isAlive(remote), 'both are gone');
      expect(existsSync(run.root)).toBe(false);
    } finally {
      for (const pid of left) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Gone already.
        }
      }
      await until(() => left.every((pid) => !isAlive(pid)), 'the processes are gone');
      spawnSync('userdel', [name]);
      rmSync(run.root, { recursive: true, force: true });
    }
  });

  it("removes a test file's directories (isolatedEnv's, fileTempDir's) after its tests", () => {
    const home = isolatedEnv().HOME!;
    const dir = fileTempDir('ptydeck-file-');
    expect(readdirSync(tmpdir())).toEqual(expect.arrayContaining([basename(home), basename(dir)]));
    removeFileTempDirs();
    expect(existsSync(home)).toBe(false);
    expect(existsSync(dir)).toBe(false);
  });
});
