// One temporary directory per test run (vitest's, the end-to-end runner's): everything the run's tests,
// their hosts, shells and browsers make under os.tmpdir() lands in it, and it goes when the run ends, so a
// developer's /tmp looks the same after `npm test` as before, even after a test that was killed or a kit
// that forgot its dispose.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What a run's directory is named in the developer's temporary directory. Short: sockets live under it (108 bytes). */
export const RUN_PREFIX = 'ptydeck-run-';

/**
 * Makes the run's directory and, in it, a throwaway HOME; answers the environment that points TMPDIR
 * (what os.tmpdir(), mktemp and Chromium read), HOME, HISTFILE and the XDG directories into it, and
 * PTYDECK_RUN_TMP naming it, so a nested runner (vitest's projects, a spec's own runner) keeps the one it has.
 */
export function openRunTmp() {
  const root = mkdtempSync(join(tmpdir(), RUN_PREFIX));
  // Searchable by others, not listable: a test runs a sandbox as a user of its own (sandbox.test.ts), who must
  // reach the directories it is given in here, as it reached them in /tmp.
  chmodSync(root, 0o711);
  const home = join(root, 'home');
  mkdirSync(home, { mode: 0o700 });
  const env = {
    // Playwright's transform cache is one directory it keeps and reuses across runs, not a leftover: where it was.
    PLAYWRIGHT_TRANSFORM_CACHE_DIR: process.env.PLAYWRIGHT_TRANSFORM_CACHE_DIR ?? join(tmpdir(), `playwright-transform-cache-${process.geteuid?.() ?? ''}`),
    PTYDECK_RUN_TMP: root,
    TMPDIR: root,
    HOME: home,
    HISTFILE: join(home, '.bash_history'),
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
  };
  return { root, home, env };
}

/**
 * What the run left in its directory besides its HOME, counted by name with mkdtemp's six characters
 * dropped (`ptydeck-shell` 3): what some test or kit made and did not remove.
 */
export function leftovers(root) {
  const counts = new Map();
  let names = [];
  try {
    names = readdirSync(root);
  } catch {
    return counts;
  }
  for (const name of names) {
    if (name === 'home') continue;
    const prefix = name.replace(/-[A-Za-z0-9]{6}$/, '');
    counts.set(prefix, (counts.get(prefix) ?? 0) + 1);
  }
  return counts;
}

/**
 * SIGKILLs the processes the run started and left running (a host or shell a failed test could not reap):
 * every one carries the run's TMPDIR in the environment it started with, which /proc shows. sshd
 * (testing/ssh-server.ts) writes its title over the memory /proc reads its environment from, and a run whose
 * remote test timed out left it listening: an sshd whose command line names a path in the run's directory is
 * the run's too. Not this process, nor its own children (vitest's workers, which it ends itself). Answers what
 * it killed.
 */
export function reapRun(root) {
  const marker = Buffer.from(`\0TMPDIR=${root}\0`);
  const killed = [];
  let pids = [];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name)).map(Number);
  } catch {
    return killed;
  }
  for (const pid of pids) {
    if (pid === process.pid) continue;
    try {
      if (readFileSync(`/proc/${pid}/stat`, 'latin1').replace(/^.*\) /s, '').split(' ')[1] === String(process.pid)) continue;
      const environ = Buffer.concat([Buffer.from([0]), readFileSync(`/proc/${pid}/environ`)]);
      const command = readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0').filter(Boolean).join(' ');
      if (environ.includes(marker) || (command.startsWith('sshd') && command.includes(`${root}/`))) {
        process.kill(pid, 'SIGKILL');
        killed.push({ pid, command: command.slice(0, 120) });
      }
    } catch {
      // Gone while we looked, or not ours to read.
    }
  }
  return killed;
}

/**
 * Removes the users the run's tests made (root only): the remote tests' sshd user (testing/ssh-server.ts), the
 * sandbox test's unprivileged one. Each has its HOME in the run's directory, which names it as the run's. A test
 * that timed out, or a worker that was ended, leaves such a user in /etc/passwd with processes of its own (a
 * remote host, its shells, an ssh session) that carry none of the run's environment, so reapRun does not see
 * them; userdel refuses a user who still runs one, so they go first. Answers the users it removed.
 */
export function removeRunUsers(root, passwd = '/etc/passwd') {
  const removed = [];
  if (process.geteuid?.() !== 0) return removed;
  let lines = [];
  try {
    lines = readFileSync(passwd, 'utf8').split('\n');
  } catch {
    return removed;
  }
  for (const line of lines) {
    const [name, , uid, , , home] = line.split(':');
    if (!name || !home?.startsWith(`${root}/`) || !/^\d+$/.test(uid) || Number(uid) === 0) continue;
    // Again until a look finds none: a process may fork after the look listed /proc.
    for (let round = 0; round < 100 && killUid(Number(uid)) > 0; round++);
    spawnSync('userdel', [name], { stdio: 'ignore' });
    removed.push(name);
  }
  return removed;
}

/** SIGKILLs every live process whose real uid is `uid`; answers how many it found. */
function killUid(uid) {
  let found = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const status = readFileSync(`/proc/${name}/status`, 'latin1');
      if (/^State:\s+Z/m.test(status) || !new RegExp(`^Uid:\\s+${uid}\\s`, 'm').test(status)) continue;
      found++;
      process.kill(Number(name), 'SIGKILL');
    } catch {
      // Gone while we looked.
    }
  }
  return found;
}

/**
 * Ends the run's processes still running (reapRun) and its users' (removeRunUsers), so none creates files in
 * the directory again, and removes it; a file one still held open is freed with its last descriptor. Answers
 * what it killed of the run's own processes, and the users it removed.
 */
export function closeRunTmp(root) {
  // Again until a look finds none: SIGKILL lands later than kill(2) returns, and a process may fork a child (a
  // shell's `mkdir`) after the look listed /proc, which then makes its directory again once it is removed
  // (ENOTEMPTY in CI). A killed process shows no environment once it exits, so the looks end.
  const killed = new Map();
  for (let round = 0; round < 1000; round++) {
    const found = reapRun(root);
    if (found.length === 0) break;
    for (const process of found) killed.set(process.pid, process);
  }
  const users = removeRunUsers(root);
  rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  return { killed: [...killed.values()], users };
}

/** Ends the run (closeRunTmp) and says on stderr what its tests left: directories in it, processes running, users. */
export function closeRunTmpReporting(root, who) {
  const left = [...leftovers(root)].map(([prefix, count]) => `${count} ${prefix}`);
  const { killed, users } = closeRunTmp(root);
  if (left.length > 0) process.stderr.write(`${who}: temporary directories the tests did not remove (removed with the run's): ${left.join(', ')}\n`);
  if (killed.length > 0) process.stderr.write(`${who}: processes the tests left running, killed: ${killed.map(({ pid, command }) => `${pid} (${command})`).join(', ')}\n`);
  if (users.length > 0) process.stderr.write(`${who}: users the tests left, removed with their processes: ${users.join(', ')}\n`);
}
