// A process's CPU time thread by thread, from /proc: what figures 2 and 13 and compare-delivery.mjs
// use to tell the host's main thread from its read thread. Node names every thread "node"; the main
// thread is the one whose tid is the pid, and the others are told apart by how busy they were.
import { readdirSync, readFileSync } from 'node:fs';

const CLK_TCK_MS = 10;

/**
 * Each thread of `pid` now, by tid: its CPU time in ms (schedstat's nanoseconds on the CPU, or
 * utime + stime in clock ticks where schedstat is missing), its time waiting for a CPU in ms
 * (`queuedMs`: schedstat's run-queue wait) and its context switches, voluntary (it
 * waited: in a read(2), a futex) and forced (preempted). Threads that ended meanwhile are left out.
 */
export function threadTimes(pid = process.pid) {
  const byTid = {};
  let tids;
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return byTid;
  }
  for (const tid of tids) {
    const dir = `/proc/${pid}/task/${tid}`;
    let cpuMs;
    // Time spent runnable but waiting for a CPU (schedstat's second field): what a reader loses to the
    // other threads and processes on the machine, apart from its waits for data. NaN without schedstat.
    let queuedMs = NaN;
    try {
      const [onCpu, queued] = readFileSync(`${dir}/schedstat`, 'utf8').split(' ');
      cpuMs = Number(onCpu) / 1e6;
      queuedMs = Number(queued) / 1e6;
    } catch {
      try {
        const stat = readFileSync(`${dir}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        cpuMs = (Number(fields[11]) + Number(fields[12])) * CLK_TCK_MS;
      } catch {
        continue;
      }
    }
    // User and system time apart (clock ticks), and read(2)-like calls (`io`'s syscr): a reader whose CPU
    // per MB rose tells more reads per MB (each finding less) from the same reads dearer in the kernel.
    let userMs = NaN;
    let systemMs = NaN;
    let reads = NaN;
    try {
      const stat = readFileSync(`${dir}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      userMs = Number(fields[11]) * CLK_TCK_MS;
      systemMs = Number(fields[12]) * CLK_TCK_MS;
      reads = Number(/\nsyscr:\s*(\d+)/.exec(`\n${readFileSync(`${dir}/io`, 'utf8')}`)?.[1] ?? NaN);
    } catch {}
    let voluntary = 0;
    let forced = 0;
    try {
      const status = readFileSync(`${dir}/status`, 'utf8');
      voluntary = Number(/\nvoluntary_ctxt_switches:\s*(\d+)/.exec(status)?.[1] ?? 0);
      forced = Number(/\nnonvoluntary_ctxt_switches:\s*(\d+)/.exec(status)?.[1] ?? 0);
    } catch {}
    byTid[tid] = { cpuMs, queuedMs, voluntary, forced, userMs, systemMs, reads };
  }
  return byTid;
}

/**
 * What each thread did between two threadTimes() readings of `pid`: the main thread, then the
 * others busiest first (`others[0]` is the read thread in a flood: the host's busiest), each
 * `{ cpuMs, queuedMs, voluntary, forced, userMs, systemMs, reads }`; a thread that started meanwhile counts from zero.
 */
export function threadSplit(pid, before, after) {
  const delta = (tid) => {
    const a = after[tid];
    const b = before[tid] ?? { cpuMs: 0, queuedMs: 0, voluntary: 0, forced: 0, userMs: 0, systemMs: 0, reads: 0 };
    return {
      cpuMs: a.cpuMs - b.cpuMs,
      queuedMs: a.queuedMs - b.queuedMs,
      voluntary: a.voluntary - b.voluntary,
      forced: a.forced - b.forced,
      userMs: a.userMs - b.userMs,
      systemMs: a.systemMs - b.systemMs,
      reads: a.reads - b.reads,
    };
  };
  const main = after[String(pid)] ? delta(String(pid)) : { cpuMs: 0, queuedMs: 0, voluntary: 0, forced: 0, userMs: 0, systemMs: 0, reads: 0 };
  const others = Object.keys(after)
    .filter((tid) => tid !== String(pid))
    .map(delta)
    .sort((a, b) => b.cpuMs - a.cpuMs);
  return { main, others };
}
