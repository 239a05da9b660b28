// Shared bench plumbing: statistics, the isolated environment, bounded waits,
// child-process bookkeeping, machine facts and the result table.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export const BENCH_DIR = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
export const REPO_DIR = path.dirname(BENCH_DIR);

// ---- statistics ----

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

export function summarize(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const sum = sorted.reduce((a, b) => a + b, 0);
  return {
    n: sorted.length,
    min: sorted[0] ?? Number.NaN,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
    mean: sorted.length ? sum / sorted.length : Number.NaN,
  };
}

export function median(values) {
  return percentile([...values].sort((a, b) => a - b), 50);
}

export const MiB = 1024 * 1024;

// ---- the heap ----

let gcFunction;

/**
 * A full GC of this process's heap, without --expose-gc (the flag is turned on at run time and gc
 * taken from a fresh context, as core's testing/leak-meters.ts does): so that a measurement starts
 * with no collection owed by what ran before it (figure 13's pairs).
 */
export function collectGarbage() {
  if (!gcFunction) {
    setFlagsFromString('--expose-gc');
    gcFunction = runInNewContext('gc');
  }
  gcFunction();
}

// ---- time ----

export const now = () => performance.now();

/** Rejects with a message naming `what` if `promise` does not settle within `ms`. */
export function withDeadline(promise, ms, what) {
  let timer;
  const expired = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${Math.round(ms / 1000)} s`)), ms);
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

/** A promise with its resolve/reject outside, for event-driven waits. */
export function deferred() {
  let resolve;
  let reject;
  const promise = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

// ---- isolated environment ----

/**
 * A temp directory holding HOME, the state dir and the data files, and the
 * clean environment every shell and core process of the bench gets: no rc
 * files of the developer (this machine's ~/.bashrc runs pyenv init), no
 * inherited terminal variables, a fixed locale.
 */
export function createWorkspace() {
  const root = mkdtempSync(path.join(os.tmpdir(), 'ptydeck-bench-'));
  const home = path.join(root, 'home');
  const state = path.join(root, 'state');
  const data = path.join(root, 'data');
  for (const dir of [home, state, data]) mkdirSync(dir, { recursive: true });
  const bash = which('bash') ?? '/bin/bash';
  const env = {
    PATH: '/usr/local/bin:/usr/bin:/bin',
    HOME: home,
    SHELL: bash,
    USER: os.userInfo().username,
    LANG: 'C.UTF-8',
    TERM: 'xterm-256color',
    TMPDIR: os.tmpdir(),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
    PTYDECK_STATE_DIR: state,
  };
  return {
    root,
    home,
    state,
    data,
    env,
    bash,
    dispose: () => rmSync(root, { recursive: true, force: true }),
  };
}

function which(name) {
  try {
    return execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

// ---- children ----

const cleanups = new Set();

/** Registers something to end if the run stops early; returns the function that unregisters it. */
export function onCleanup(fn) {
  cleanups.add(fn);
  return () => cleanups.delete(fn);
}

/** Ends everything still registered (children, raw PTYs), newest first. */
export async function runCleanups() {
  const fns = [...cleanups].reverse();
  cleanups.clear();
  for (const fn of fns) {
    try {
      await fn();
    } catch {
      // best effort: the rest must still run
    }
  }
}

/** Kills a child by pid and waits (bounded) for it to go. */
export async function killChild(child, signal = 'SIGTERM', graceMs = 5000) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await gone;
  clearTimeout(timer);
}

/** Resident set of a process from /proc, in bytes (current and peak). */
export function processMemory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN) * 1024;
  return { rss: field('VmRSS'), hwm: field('VmHWM') };
}

// ---- machine ----

export function machineInfo() {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  const model = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? os.cpus()[0]?.model ?? 'unknown';
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_DIR, encoding: 'utf8' }).trim();
  } catch {
    // not a checkout
  }
  return {
    nproc: os.availableParallelism?.() ?? os.cpus().length,
    cpu: model,
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    memoryGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    commit,
  };
}

/**
 * The machine's CPU time so far, from the first line of /proc/stat (in
 * clock ticks): all of it, and the part stolen (time this VM's vCPUs were
 * ready to run while the hypervisor ran something else). Null off Linux.
 */
export function cpuClock() {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1, 9).map(Number);
    return { total: fields.reduce((a, b) => a + b, 0), steal: fields[7] ?? 0 };
  } catch {
    return null;
  }
}

/**
 * The share of CPU time stolen by the host between two cpuClock() readings,
 * in percent: on a VM, what a throughput measurement lost to other guests. A
 * repetition with a lot of it measures the host, not the code.
 */
export function stealPercent(from, to) {
  if (!from || !to || to.total <= from.total) return null;
  return (100 * (to.steal - from.steal)) / (to.total - from.total);
}

export function loadAverage() {
  return os.loadavg().map((v) => Math.round(v * 100) / 100);
}

// ---- rows and the table ----

/**
 * One line of the result table. `better` says which way the ratio should go
 * ('lower' for times and memory, 'higher' for throughput); `pass` is null
 * when the row has no target.
 */
export function row({ figure, metric, unit, value, baseline, ratio, target = '', pass = null, note = '' }) {
  const r = ratio ?? (Number.isFinite(value) && Number.isFinite(baseline) && baseline !== 0 ? value / baseline : null);
  return { figure, metric, unit, value, baseline: baseline ?? null, ratio: r, target, pass, note };
}

export function fmt(value, unit = '') {
  if (value === null || value === undefined || Number.isNaN(value)) return '-';
  if (typeof value === 'string') return value;
  if (Number.isInteger(value) && Math.abs(value) < 1000) return `${value}${unit ? ` ${unit}` : ''}`;
  const abs = Math.abs(value);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : abs >= 1 ? 2 : 3;
  return `${value.toFixed(digits)}${unit ? ` ${unit}` : ''}`;
}

export function formatTable(rows) {
  const header = ['#', 'measure', 'ptydeck', 'baseline', 'ratio', 'target', 'result'];
  const body = rows.map((r) => [
    r.figure,
    r.metric,
    fmt(r.value, r.unit),
    fmt(r.baseline, r.unit),
    r.ratio === null || r.ratio === undefined ? '-' : `${r.ratio.toFixed(2)}x`,
    r.target || '-',
    r.pass === null ? (r.note ? 'info' : '-') : r.pass ? 'ok' : 'MISS',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => String(b[i]).length)));
  const line = (cells) => `| ${cells.map((c, i) => String(c).padEnd(widths[i])).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n');
}
