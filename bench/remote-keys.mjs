// Where a remote key's time goes, and its slowest echoes' (figure 15's product path, issue 37):
// `node bench/remote-keys.mjs [keys] [out.json]`, as root (the tests' sshd kit, as figure 15). Types `keys` keys
// into a remote session in the panel, each followed by one through `ssh -T DEST cat`, and around every key reads
// the scheduler's counters of every thread on either path (/proc/PID/task/TID/schedstat: CPU run, and time
// runnable but waiting for a CPU), summed by process role. Prints per role the CPU and the run-queue wait per key,
// as the mean over all keys, over the middle tenth and over the slowest 1%. The box's host is started here, as the
// box's user, with the node flags a client starts it with. Options, in the environment:
// - BENCH_THREADS=1: per thread (main, or the thread's name and its tid's offset from the pid), not per process.
// - BENCH_GC_LOG=<dir>: this machine's host and the box's host log their GC pauses there (lib/gc-log.cjs), and
//   the slowest 1% are matched to the pauses that overlap them.
// - BENCH_BOX_FLAGS, BENCH_CHANNEL_FLAGS: more node flags for the box's host, for `ptydeck panel-channel` there
//   (say --cpu-prof --cpu-prof-dir=DIR, a directory the box's user can write); BENCH_CPU_PROF and
//   BENCH_HOST_FLAGS apply to this machine's host as in every figure (lib/hosts.mjs).
// - BENCH_STRACE=<file>: strace -T of the box host's main thread's reads and writes during the keys; with
//   BENCH_STRACE_ALL=1, of every thread of every process on either path (their roles in <file>.roles.json).
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HOST_NODE_FLAGS } from '../packages/core/dist/common/host-node-flags.js';
import { createWorkspace, now, summarize, withDeadline } from './lib/harness.mjs';
import { startCoreHost } from './lib/hosts.mjs';
import { PanelClient } from './lib/panel-client.mjs';
import { keyFor } from './lib/raw-pty.mjs';
import { startSshBox } from './lib/ssh-box.mjs';

const keys = Number(process.argv[2] ?? 1000);
const out = process.argv[3];
const gcDir = process.env.BENCH_GC_LOG;
const GC_LOG = fileURLToPath(new URL('./lib/gc-log.cjs', import.meta.url));
if (gcDir) mkdirSync(gcDir, { recursive: true }), chmodSync(gcDir, 0o1777);

const workspace = createWorkspace();
const box = await startSshBox();
// A failure leaves no test user, sshd or hosts behind.
let boxHost;
process.once('uncaughtException', (error) => {
  console.error(error);
  boxHost?.kill('SIGKILL');
  void box.close().finally(() => process.exit(1));
});
// The box's host started here, as the box's user, as ensureHost starts it (its flags and allocator setting), with
// the GC log and BENCH_BOX_FLAGS (say --cpu-prof): a client's ensureHost keeps NODE_OPTIONS out of a host it starts.
const boxState = path.join(box.home, '.local', 'state', 'ptydeck');
const boxFlags = [...HOST_NODE_FLAGS, ...(gcDir ? ['--require', GC_LOG] : []), ...(process.env.BENCH_BOX_FLAGS?.split(' ').filter(Boolean) ?? [])];
boxHost = spawn(process.execPath, [...boxFlags, fileURLToPath(new URL('../packages/core/bin/ptydeck.js', import.meta.url)), 'host'], {
  uid: box.uid,
  gid: box.uid,
  cwd: box.home,
  env: { HOME: box.home, USER: box.user, PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`, LANG: 'C.UTF-8', MALLOC_MMAP_THRESHOLD_: '65536', ...(gcDir ? { BENCH_GC_LOG: gcDir } : {}) },
  stdio: 'ignore',
});
await withDeadline(
  (async () => {
    while (!existsSync(path.join(boxState, 'server.json'))) await new Promise((resolve) => setTimeout(resolve, 50));
  })(),
  30_000,
  "the box's host",
);
// BENCH_CHANNEL_FLAGS: node flags for the box's `ptydeck panel-channel` (say --cpu-prof --cpu-prof-dir=DIR).
if (process.env.BENCH_CHANNEL_FLAGS) box.install(`#!/bin/sh\nexec ${process.execPath} ${process.env.BENCH_CHANNEL_FLAGS} ${fileURLToPath(new URL('../packages/core/bin/ptydeck.js', import.meta.url))} "$@"\n`);
const configDir = path.join(workspace.home, '.config', 'ptydeck');
mkdirSync(configDir, { recursive: true });
writeFileSync(path.join(configDir, 'remotes.json'), JSON.stringify({ remotes: { box: { destination: box.alias } } }));
if (gcDir) process.env.BENCH_HOST_FLAGS = `${process.env.BENCH_HOST_FLAGS ?? ''} --require ${GC_LOG}`.trim();
const host = await startCoreHost({ ...workspace, env: { ...workspace.env, PTYDECK_SSH: box.ssh, ...(gcDir ? { BENCH_GC_LOG: gcDir } : {}) } });
const client = await PanelClient.connect(host.ready.url, host.ready.panelToken);
const connected = client.nextJson((m) => m.type === 'hosts' && m.hosts[0]?.state === 'connected', 60_000, 'the link to box');
client.send({ type: 'hosts.watch' });
await connected;
const created = client.nextJson((m) => m.type === 'created' && m.requestId === 'e', 30_000, 'a remote shell');
client.send({ type: 'create', requestId: 'e', host: 'box', cols: 120, rows: 40 });
const id = (await created).message.info.id;
client.attach(id, null);
await client.until(() => client.stream(id).next !== null, 30_000, 'its screen');
await client.typeUntil(id, 'printf "UP%s\\n" 1\r', 'UP1');
await client.typeUntil(id, 'stty raw -echo; printf "READY%s" 42; exec cat\r', 'READY42');
const sshCat = spawn(box.ssh, ['-T', box.alias, 'cat'], { stdio: ['pipe', 'pipe', 'ignore'] });
let waiting = null;
sshCat.stdout.on('data', () => waiting?.());
const sshKey = async (i) => {
  const started = now();
  const echoed = new Promise((resolve) => (waiting = resolve));
  sshCat.stdin.write(keyFor(i));
  await withDeadline(echoed, 10_000, 'ssh cat echo');
  return now() - started;
};

/** Every process on either path, by pid, with its role. */
function processes() {
  const all = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const uid = Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${name}/status`, 'latin1'))[1]);
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'latin1').split('\0').join(' ');
      all.set(Number(name), { ppid, uid, cmd, comm: readFileSync(`/proc/${name}/comm`, 'latin1').trim() });
    } catch {
      // It ended.
    }
  }
  const mine = new Set([process.pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, p] of all) if (!mine.has(pid) && mine.has(p.ppid)) mine.add(pid), (grew = true);
  }
  const found = [];
  for (const [pid, p] of all) {
    const ours = mine.has(pid) || p.uid === box.uid || (p.comm === 'ssh' && (p.cmd.includes(path.dirname(box.ssh)) || p.cmd.includes(workspace.state)));
    if (!ours || pid === process.pid) continue;
    let role = p.comm;
    if (pid === host.pid) role = 'local host';
    else if (p.comm === 'ssh') role = p.cmd.includes('[mux]') ? 'ssh master' : p.cmd.includes(' cat') ? 'ssh (cat)' : p.cmd.includes('panel-channel') ? 'ssh' : 'ssh ?';
    else if (p.cmd.includes('panel-channel')) role = 'panel-channel';
    else if (p.comm.startsWith('sshd')) role = p.uid === box.uid ? 'sshd (user)' : 'sshd (root)';
    else if (p.comm === 'node' || p.comm.startsWith('ptydeck')) role = p.uid === box.uid ? 'box host' : `node ${pid}`;
    found.push({ pid, role });
  }
  return found;
}

function counters(procs) {
  const byRole = {};
  for (const { pid, role } of procs) {
    let tasks;
    try {
      tasks = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const task of tasks) {
      try {
        const [run, wait] = readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'latin1').split(' ').map(Number);
        const thread = process.env.BENCH_THREADS ? `${role}/${Number(task) === pid ? 'main' : `${readFileSync(`/proc/${pid}/task/${task}/comm`, 'latin1').trim()}:${Number(task) - pid}`}` : role;
        const r = (byRole[thread] ??= { run: 0, wait: 0 });
        r.run += run;
        r.wait += wait;
      } catch {
        // The thread ended.
      }
    }
  }
  return byRole;
}

for (let i = 0; i < 50; i++) await client.echoLatency(id, i), await sshKey(i);
let procs = processes();
// BENCH_STRACE=<file>: the box host's main thread's reads and writes during the keys, timed (strace -T).
// BENCH_STRACE_ALL=1: every thread of every process on either path instead (-f), hop by hop; their roles by pid
// go to <file>.roles.json, to follow a key from this machine's host through ssh, sshd, panel-channel and the box's host.
const traced = process.env.BENCH_STRACE_ALL ? procs.flatMap(({ pid }) => ['-p', String(pid)]) : ['-p', String(boxHost.pid)];
if (process.env.BENCH_STRACE && process.env.BENCH_STRACE_ALL) writeFileSync(`${process.env.BENCH_STRACE}.roles.json`, JSON.stringify(procs));
const strace = process.env.BENCH_STRACE
  ? spawn('strace', [...(process.env.BENCH_STRACE_ALL ? ['-f'] : []), '-tt', '-T', '-e', `trace=read,write,writev,epoll_wait,epoll_pwait${process.env.BENCH_STRACE_ALL ? ',ppoll,poll' : ''}`, '-o', process.env.BENCH_STRACE, ...traced], { stdio: 'ignore' })
  : undefined;
if (strace) await new Promise((resolve) => setTimeout(resolve, 1000));
const samples = [];
const baseline = [];
for (let i = 0; i < keys; i++) {
  if (i % 100 === 0) procs = processes();
  const before = counters(procs);
  const startedAt = performance.timeOrigin + now();
  const ms = await client.echoLatency(id, i);
  const after = counters(procs);
  const delta = {};
  for (const [role, a] of Object.entries(after)) {
    const b = before[role] ?? { run: a.run, wait: a.wait };
    if (a.run === b.run && a.wait === b.wait) continue;
    delta[role] = { run: (a.run - b.run) / 1e3, wait: (a.wait - b.wait) / 1e3 };
  }
  samples.push({ ms, startedAt, delta });
  baseline.push(await sshKey(i));
}

if (strace) strace.kill('SIGINT'), await new Promise((resolve) => strace.once('exit', resolve));
const gcs = [];
if (gcDir) {
  for (const file of readdirSync(gcDir)) {
    for (const line of readFileSync(path.join(gcDir, file), 'utf8').split('\n').filter(Boolean)) gcs.push({ file, ...JSON.parse(line) });
  }
}
const sorted = [...samples].sort((a, b) => a.ms - b.ms);
const slow = sorted.slice(Math.floor(sorted.length * 0.99));
const middle = sorted.slice(Math.floor(sorted.length * 0.45), Math.ceil(sorted.length * 0.55));
const roles = [...new Set(samples.flatMap((s) => Object.keys(s.delta)))].sort();
const mean = (set, role, field) => set.reduce((sum, s) => sum + (s.delta[role]?.[field] ?? 0), 0) / set.length;
const overlapping = (s) => gcs.filter((g) => g.start < s.startedAt + s.ms && g.start + g.ms > s.startedAt);
const c = summarize(samples.map((s) => s.ms));
const b = summarize(baseline);
console.log(`load ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
console.log(`product p50 ${c.p50.toFixed(2)} p99 ${c.p99.toFixed(2)} ms; ssh -T cat p50 ${b.p50.toFixed(2)} p99 ${b.p99.toFixed(2)}; ratio p99 ${(c.p99 / b.p99).toFixed(2)}x`);
console.log('role: CPU us per key (all keys / median keys / slowest 1%), run-queue wait us per key (all / median / slowest 1%)');
for (const role of roles) {
  const cells = (field) => [samples, middle, slow].map((set) => mean(set, role, field).toFixed(0).padStart(5)).join(' /');
  console.log(`  ${role.padEnd(30)} run ${cells('run')}   wait ${cells('wait')}`);
}
const path_ = (set, field) => roles.reduce((sum, role) => sum + mean(set, role, field), 0);
console.log(`  ${'all'.padEnd(30)} run ${[samples, middle, slow].map((set) => path_(set, 'run').toFixed(0).padStart(5)).join(' /')}   wait ${[samples, middle, slow].map((set) => path_(set, 'wait').toFixed(0).padStart(5)).join(' /')}`);
if (gcDir) {
  console.log(`GC pauses logged: ${gcs.length}; slowest 1% keys overlapping one: ${slow.filter((s) => overlapping(s).length > 0).length} of ${slow.length}; median keys: ${middle.filter((s) => overlapping(s).length > 0).length} of ${middle.length}`);
  for (const s of slow) console.log(`  ${s.ms.toFixed(2)} ms: ${overlapping(s).map((g) => `${g.file} ${g.kind} ${g.ms.toFixed(2)}ms`).join(', ')}`);
}
if (out) writeFileSync(out, JSON.stringify({ samples, baseline, gcs }));
sshCat.kill();
await client.close();
await host.stop();
boxHost.kill('SIGTERM');
await new Promise((resolve) => boxHost.once('exit', resolve));
await box.close();
process.exit(0);
