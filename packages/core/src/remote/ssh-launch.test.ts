import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { HOST_PROTOCOL_VERSION } from '@ptydeck/contract';
import { packageVersion } from '../common/package-version.js';
import { createPtyService } from '../pty/pty-service.js';
import { fileTempDir, isolatedEnv } from '../testing/isolated-env.js';
import { RemoteVerdict, spawnRemote, sshArgs, sshEnv } from './ssh-launch.js';

const box = { name: 'box', destination: 'dev@box' };
const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

/** Runs the remote command as a remote login shell would: the last argv element, given to sh -c, in a bare HOME and sshd's PATH. */
function runRemotely(args: string[], install?: (home: string) => void) {
  const home = fileTempDir('ptydeck-remote-home-');
  homes.push(home);
  install?.(home);
  const argv = sshArgs(box, args);
  const run = spawnSync('/bin/sh', ['-c', argv[argv.length - 1]!], { env: { HOME: home, PATH: '/usr/bin:/bin', SHELL: '/bin/sh' }, encoding: 'utf8' });
  const passed: string[] = [];
  const verdict = new RemoteVerdict(box, (line) => passed.push(line));
  verdict.write(run.stderr);
  verdict.end();
  return { run, failure: verdict.failure(run.status), passed, home };
}

function fakePtydeck(version: string) {
  return (home: string) => {
    mkdirSync(join(home, '.local', 'bin'), { recursive: true });
    const path = join(home, '.local', 'bin', 'ptydeck');
    writeFileSync(path, `#!/bin/sh\nif [ "$1" = --version ]; then echo "${version}"; else echo "ran $* in $(pwd) PATH=$PATH"; fi\n`);
    chmodSync(path, 0o755);
  };
}

describe('sshArgs', () => {
  it('passes the destination as one element after --, with nothing of ours forwarded', () => {
    const argv = sshArgs({ name: 'x', destination: 'user@host' }, ['ls'], { batch: true });
    const at = argv.indexOf('--');
    expect(argv[at + 1]).toBe('user@host');
    expect(argv.length).toBe(at + 3);
    expect(argv.slice(0, at)).toEqual(expect.arrayContaining(['-T', '-a', '-x', 'ClearAllForwardings=yes', 'BatchMode=yes']));
  });

  it('refuses an argument the remote shell would read as syntax', () => {
    expect(() => sshArgs(box, ['attach', 'x; rm -rf ~'])).toThrow(/cannot pass/);
    expect(() => sshArgs(box, ["a'b"])).toThrow(/cannot pass/);
  });

  it('gives ssh only what it needs from the environment', () => {
    expect(sshEnv({ HOME: '/h', SSH_AUTH_SOCK: '/s', AWS_SECRET_ACCESS_KEY: 'k', LANG: 'C', PWD: '/work/secret' })).toEqual({ HOME: '/h', SSH_AUTH_SOCK: '/s' });
  });
});

describe('the remote script', () => {
  it('says where it looked when there is no ptydeck', () => {
    const { run, failure, passed } = runRemotely(['ls']);
    expect(run.status).toBe(87);
    expect(passed).toEqual([]);
    expect(failure).toMatch(/^no ptydeck on remote 'box' \(dev@box\); looked in PATH \(\/usr\/bin:\/bin\), \/bin\/sh -lc "command -v ptydeck", .*\/\.local\/bin, .*: install ptydeck \S+ there: .*npm install -g/);
    expect(failure).not.toContain('\n');
  });

  it('names both versions when the remote ptydeck speaks another host protocol, and runs nothing', () => {
    const { run, failure } = runRemotely(['mcp'], fakePtydeck('ptydeck 0.0.1 (host protocol 0)'));
    expect(run.status).toBe(86);
    expect(run.stdout).toBe('');
    expect(failure).toMatch(/^the ptydeck on remote 'box' \(\/.*\/\.local\/bin\/ptydeck\) is 0\.0\.1 \(host protocol 0\); this ptydeck is \S+ \(host protocol \d+\): install ptydeck/);
  });

  it('names both versions when the remote ptydeck speaks our host protocol but is another version (it may lack a subcommand we run), and runs nothing', () => {
    const { run, failure } = runRemotely(['mcp', '--agent-key-stdin'], fakePtydeck(`ptydeck 0.0.1 (host protocol ${HOST_PROTOCOL_VERSION})`));
    expect(run.status).toBe(86);
    expect(run.stdout).toBe('');
    expect(failure).toMatch(new RegExp(`^the ptydeck on remote 'box' \\(/.*/\\.local/bin/ptydeck\\) is 0\\.0\\.1 \\(host protocol ${HOST_PROTOCOL_VERSION}\\); this ptydeck is ${packageVersion().replace(/\./g, '\\.')} \\(host protocol`));
    expect(failure).not.toContain('\n');
  });

  it('says so when the remote ptydeck does not run at all', () => {
    const { failure } = runRemotely(['mcp'], fakePtydeck('env: node: No such file or directory'));
    expect(failure).toMatch(/\(\/.*ptydeck\) did not run \(env: node: No such file or directory\)/);
  });

  it('runs the remote ptydeck found outside PATH, in the remote home, with its directory on PATH', () => {
    const { run, failure, home } = runRemotely(['ls', '--json'], fakePtydeck(`ptydeck ${packageVersion()} (host protocol ${HOST_PROTOCOL_VERSION})`));
    expect(failure).toBeUndefined();
    expect(run.status).toBe(0);
    expect(run.stdout).toBe(`ran ls --json in ${process.cwd()} PATH=${home}/.local/bin:/usr/bin:/bin\n`);
  });
});

describe('the ssh a remote runs', () => {
  it("holds no session's terminal master: a ControlPersist master lives on with whatever it was given", async () => {
    const service = createPtyService({ env: isolatedEnv(), killGraceMs: 500 });
    try {
      // node-pty's masters are not close-on-exec, and libuv closes nothing in a child.
      service.create({ source: 'user', command: 'cat' });
      const dir = fileTempDir('ptydeck-ssh-fds-');
      homes.push(dir);
      const ssh = join(dir, 'ssh');
      writeFileSync(ssh, '#!/bin/bash\nfor f in /proc/$$/fd/*; do readlink "$f"; done\n');
      chmodSync(ssh, 0o755);
      const child = spawnRemote(box, ['ls'], { env: { PATH: '/usr/bin:/bin', HOME: dir, PTYDECK_SSH: ssh }, stateDir: dir });
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
      await new Promise((resolve) => child.once('close', resolve));
      // bash reads the script on a descriptor of its own: the listing ran.
      expect(out).toContain(ssh);
      expect(out).not.toContain('ptmx');
    } finally {
      await service.dispose();
    }
  });
});
