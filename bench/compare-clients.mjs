// Figure 12's commands from two or more checkouts, interleaved in one run, for a before/after that
// shares the machine's moment: `node bench/compare-clients.mjs <checkout>,<checkout> [rounds] [sessions] [ls,url,attach]`.
// Each checkout gets a host of its own (its bench/lib/hosts.mjs) with `sessions` sessions; each round runs
// `node -e 0` before every command, in an order that rotates. Prints per command the median wall time (and its
// ratio to `node -e 0`), the client's CPU (user + system, from wait4's rusage) and peak RSS, and the host's CPU
// per command (its threads' /proc/<pid>/task/*/schedstat around it): on a loaded machine the CPU columns
// move far less than the wall times. The bench's own figure 12 is `node bench/run.mjs --only=12`.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Runs argv[1:] as a child and reports when it forked, and its CPU, peak RSS and wall time (to stderr). */
const RUSAGE = `
import os, sys, time
sys.stderr.write('forked %.3f\\n' % (time.time() * 1000))
sys.stderr.flush()
start = time.monotonic()
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
wall = (time.monotonic() - start) * 1000
sys.stderr.write('rusage %.3f %d %.3f\\n' % ((usage.ru_utime + usage.ru_stime) * 1000, usage.ru_maxrss, wall))
sys.exit(os.waitstatus_to_exitcode(status))
`;

const [trees, roundsArg = '15', sessionsArg = '5', commandsArg = 'ls,url,attach'] = process.argv.slice(2);
if (!trees) throw new Error('usage: node bench/compare-clients.mjs <checkout>[,<checkout>...] [rounds] [sessions] [ls,url,attach]');
const rounds = Number(roundsArg);
const sessions = Number(sessionsArg);
const which = commandsArg.split(',');

const checkouts = await Promise.all(
  trees.split(',').map(async (tree) => ({
    tree: path.resolve(tree),
    harness: await import(path.resolve(tree, 'bench/lib/harness.mjs')),
    hosts: await import(path.resolve(tree, 'bench/lib/hosts.mjs')),
  })),
);
const workspace = checkouts[0].harness.createWorkspace();
const setups = [];
try {
  for (const { tree, hosts } of checkouts) {
    const host = await hosts.startCoreHost(workspace, { maxSessions: sessions + 10 });
    setups.push({ host });
    const env = { ...workspace.env, PTYDECK_STATE_DIR: host.ready.stateDir };
    const ids = [];
    for (let i = 0; i < sessions; i++) ids.push(await host.request('create', { input: { command: 'sh', args: ['-c', `echo ready-${i}; exec sleep 3600`], cwd: workspace.home } }));
    const bin = path.join(tree, 'packages', 'core', 'bin', 'ptydeck.js');
    const commands = { ls: { argv: [bin, 'ls'] }, url: { argv: [bin, 'url'] }, attach: { argv: [bin, 'attach', ids[0]], until: 'ready-0' } };
    for (const name of which) setups.push({ name: `${path.basename(tree)} ${name}`, command: commands[name], env, host });
  }
  const jobs = setups.filter((setup) => setup.command);
  const node = { argv: ['-e', '0'] };
  const samples = new Map([['node -e 0', []], ...jobs.map((job) => [job.name, []])]);
  for (const job of jobs) await timed(job.command, job.env);
  const loadBefore = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < jobs.length; k++) {
      const job = jobs[(k + round) % jobs.length];
      samples.get('node -e 0').push(await timed(node, workspace.env));
      const before = hostCpuMs(job.host.pid);
      const sample = await timed(job.command, job.env);
      samples.get(job.name).push({ ...sample, hostMs: hostCpuMs(job.host.pid) - before });
    }
  }
  const loadAfter = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  const base = median(samples.get('node -e 0').map((s) => s.ms));
  console.log(`${rounds} rounds, ${sessions} sessions, load ${loadBefore} -> ${loadAfter}`);
  for (const [name, list] of samples) {
    const ms = median(list.map((s) => s.ms));
    const host = list[0]?.hostMs === undefined ? '' : `  host CPU ${median(list.map((s) => s.hostMs)).toFixed(1)} ms`;
    console.log(`${name.padEnd(20)} ${ms.toFixed(1).padStart(6)} ms ${(ms / base).toFixed(2)}x  CPU ${median(list.map((s) => s.cpuMs)).toFixed(1)} ms  peak ${median(list.map((s) => s.rssMiB)).toFixed(1)} MiB${host}`);
  }
} finally {
  for (const { host } of setups.filter((setup) => !setup.command)) await host.stop();
  workspace.dispose();
}

/**
 * Wall ms from the command's fork to its exit (or to `until` on its stdout, when it is then detached), its
 * CPU and peak RSS: python's os.wait4 gives the child's own rusage, and the wrapper's own start is not counted.
 */
function timed(command, env) {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', ['-c', RUSAGE, process.execPath, ...command.argv], { env, cwd: env.HOME });
    let out = '';
    let err = '';
    let seenAt;
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (command.until && seenAt === undefined && out.includes(command.until)) {
        seenAt = performance.timeOrigin + performance.now();
        child.stdin.end('\x1cd');
      }
    });
    child.stderr.on('data', (chunk) => (err += chunk));
    child.once('exit', (code) => {
      const forked = /^forked (\S+)$/m.exec(err);
      const usage = /^rusage (\S+) (\S+) (\S+)$/m.exec(err);
      if (code !== 0 || !forked || !usage) return reject(new Error(`${command.argv.join(' ')} exited ${code}: ${err}`));
      const ms = seenAt === undefined ? Number(usage[3]) : seenAt - Number(forked[1]);
      resolve({ ms, cpuMs: Number(usage[1]), rssMiB: Number(usage[2]) / 1024 });
    });
  });
}

/** CPU ms the process's threads have run, from the scheduler's per-thread counters. */
function hostCpuMs(pid) {
  let ns = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // The thread ended.
    }
  }
  return ns / 1e6;
}
