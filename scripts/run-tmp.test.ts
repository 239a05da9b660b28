import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
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
    expect(closeRunTmp(run.root).map(({ pid }) => pid)).toContain(writer);
    await until(() => !isAlive(writer), 'the writer is gone');
    expect(existsSync(run.root)).toBe(false);
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
