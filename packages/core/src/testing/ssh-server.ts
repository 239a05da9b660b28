// A real OpenSSH server of a test's own: its own host key, config and port on loopback, for a user it creates. Test-only.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bin } from './host-sandbox.js';
import { freeLoopbackPort } from '../common/free-port.js';

export interface SshServer {
  /** The Host alias the client config (PTYDECK_SSH's wrapper) knows. */
  alias: string;
  user: string;
  uid: number;
  /** The test user's temporary HOME on the "remote". */
  home: string;
  /** An ssh program that uses this server's client config and key, never the real ~/.ssh: for PTYDECK_SSH. */
  ssh: string;
  /** Puts an executable `ptydeck` in the user's ~/.local/bin (outside sshd's PATH): the checkout's launcher, or a script's text. */
  install(script?: string): void;
  uninstall(): void;
  /** How many ssh connections sshd has accepted so far (its log's "Accepted publickey" lines): one per connection, whatever runs in it. */
  connections(): number;
  /** Ends every process of the user, sshd, the user and the files. */
  close(): Promise<void>;
}

/** Whether this machine can run the kit: root (to create a user), sshd and ssh-keygen. */
export function canRunSshServer(): boolean {
  return process.getuid?.() === 0 && spawnSync('/usr/sbin/sshd', ['-V']).error === undefined && spawnSync('ssh-keygen', ['-?']).error === undefined;
}

/**
 * Every server this process started, and every start still under way: what closeSshServers ends. A beforeAll
 * that timed out while its server started never got the server to close, and the start went on to make the user
 * and sshd (a loaded run left sshd, a remote host and its shell running, and ptdr users in /etc/passwd).
 */
const started = new Set<Promise<SshServer | undefined>>();

/**
 * Ends every server of this process, those still starting once they have (their start's failure is the test's
 * to report, not this): a test file's afterAll, which runs after a test or hook that timed out too.
 */
export async function closeSshServers(): Promise<void> {
  const servers = await Promise.all([...started]);
  started.clear();
  for (const server of servers) await server?.close();
}

/** `shell`: the test user's login shell (default /bin/sh; bash gives the remote's tabs ptydeck's marks, so their commands are recorded). */
export function startSshServer(options: { shell?: string } = {}): Promise<SshServer> {
  const starting = start(options);
  started.add(starting.catch(() => undefined));
  return starting;
}

async function start(options: { shell?: string }): Promise<SshServer> {
  const dir = mkdtempSync(join(tmpdir(), 'ptydeck-sshd-'));
  chmodSync(dir, 0o755);
  const user = `ptdr${randomBytes(3).toString('hex')}`;
  const home = join(dir, 'home');
  mkdirSync(home);
  const made: { uid?: number; sshd?: ChildProcess } = {};
  /**
   * Ends what the start made so far and whatever ran as the user: the server's close, and a failed start's end.
   * Once: a second close (the test's own, then closeSshServers) would kill what runs under the uid by then, which
   * another file's new user may have been given.
   */
  let ended: Promise<void> | undefined;
  const end = () => (ended ??= endOnce());
  const endOnce = async () => {
    made.sshd?.kill('SIGTERM');
    // Every process of the user is this test's: the remote host, its shells, ssh sessions.
    const uid = made.uid;
    for (let round = 0; uid !== undefined && round < 50 && processesOfUid(uid).length > 0; round++) {
      for (const pid of processesOfUid(uid)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // Gone already.
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    if (uid !== undefined) removeLeftInTmp(uid);
    spawnSync('userdel', [user]);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    return await serve(dir, user, home, options, made, end);
  } catch (error) {
    await end();
    throw error;
  }
}

/**
 * Removes what the user's processes left in the shared temporary directories: the remote host, killed above rather
 * than stopped, cannot remove its shells' rcfile directory (/tmp/ptydeck-shell-*), which stayed behind owned by a
 * uid no user has any more.
 */
export function removeLeftInTmp(uid: number): void {
  // The user's processes start from sshd's environment, without this run's TMPDIR: /tmp.
  for (const root of new Set([tmpdir(), '/tmp'])) {
    for (const name of readdirSync(root)) {
      const path = join(root, name);
      try {
        if (lstatSync(path).uid === uid) rmSync(path, { recursive: true, force: true });
      } catch {
        // Gone already.
      }
    }
  }
}

/** Makes the user, keys and config in `dir` and starts sshd, noting in `made` what `end` must undo. */
async function serve(dir: string, user: string, home: string, options: { shell?: string }, made: { uid?: number; sshd?: ChildProcess }, end: () => Promise<void>): Promise<SshServer> {
  run('useradd', ['-M', '-d', home, '-s', options.shell ?? '/bin/sh', '-p', '*', user]);
  const uid = Number(run('id', ['-u', user]).trim());
  made.uid = uid;
  chownSync(home, uid, uid);
  chmodSync(home, 0o700);
  for (const key of ['host_key', 'client_key']) run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'ptydeck-test', '-f', join(dir, key)]);
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(join(dir, 'client_key.pub')), { mode: 0o644 });
  const port = await freeLoopbackPort();
  writeFileSync(
    join(dir, 'sshd_config'),
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${join(dir, 'host_key')}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      'UsePAM no',
      'StrictModes no',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      `AllowUsers ${user}`,
      'PermitUserEnvironment no',
      'LogLevel VERBOSE',
      '',
    ].join('\n'),
  );
  mkdirSync('/run/sshd', { recursive: true });
  const sshd: ChildProcess = spawn('/usr/sbin/sshd', ['-D', '-f', join(dir, 'sshd_config'), '-E', join(dir, 'sshd.log')], { stdio: 'ignore' });
  made.sshd = sshd;
  const alias = 'ptydeck-test-box';
  writeFileSync(
    join(dir, 'ssh_config'),
    [
      `Host ${alias}`,
      '  HostName 127.0.0.1',
      `  Port ${port}`,
      `  User ${user}`,
      `  IdentityFile ${join(dir, 'client_key')}`,
      '  IdentitiesOnly yes',
      '  StrictHostKeyChecking no',
      '  UserKnownHostsFile /dev/null',
      '  LogLevel ERROR',
      '',
    ].join('\n'),
  );
  const ssh = join(dir, 'ssh');
  // -F: this config only, never the real ~/.ssh (ssh finds ~ from the passwd entry, not $HOME).
  writeFileSync(ssh, `#!/bin/sh\nexec /usr/bin/ssh -F '${join(dir, 'ssh_config')}' "$@"\n`, { mode: 0o755 });
  await listening(port, sshd, join(dir, 'sshd.log'));
  const binDir = join(home, '.local', 'bin');
  const installed = join(binDir, 'ptydeck');
  const asUser = (path: string) => chownSync(path, uid, uid);
  const server: SshServer = {
    alias,
    user,
    uid,
    home,
    ssh,
    install(script) {
      mkdirSync(binDir, { recursive: true });
      for (const path of [join(home, '.local'), binDir]) asUser(path);
      rmSync(installed, { force: true });
      if (script === undefined) symlinkSync(bin, installed);
      else writeFileSync(installed, script, { mode: 0o755 });
    },
    uninstall() {
      rmSync(installed, { force: true });
    },
    connections() {
      return readFileSync(join(dir, 'sshd.log'), 'utf8').match(/^.*Accepted publickey for /gm)?.length ?? 0;
    },
    close: end,
  };
  return server;
}

function run(command: string, args: string[]): string {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr || result.error?.message}`);
  return result.stdout;
}

/** Resolves once sshd accepts connections on the port; rejects when it exited first. */
async function listening(port: number, sshd: ChildProcess, log: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (sshd.exitCode !== null) throw new Error(`sshd exited (${sshd.exitCode}): ${readFileSync(log, 'utf8')}`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`sshd did not listen on ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Live processes whose real uid is `uid`. */
export function processesOfUid(uid: number): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const status = readFileSync(`/proc/${name}/status`, 'latin1');
      if (/^State:\s+Z/m.test(status)) continue;
      if (new RegExp(`^Uid:\\s+${uid}\\s`, 'm').test(status)) found.push(Number(name));
    } catch {
      // Gone while we looked.
    }
  }
  return found;
}
