// Figure 13's ingest taken apart: `node bench/compare-timeline.mjs [pairs] [MiB] [sides]`. The same ingest as
// fig13-timeline.mjs (a `cat` of the plain file through a new PtyService, with a Timeline whose records and chunk
// times are on or off), in alternated pairs of each side against `off`, and per ingest the process's CPU (user and
// system), the CPU of each thread (lib/thread-cpu.mjs: the main thread, the read thread, the rest), their context
// switches, and the main isolate's GCs (perf_hooks). Prints per side the trimmed mean (lib/paired-ratio.mjs) of the
// pairs' differences from `off` per MB, so a cost shows where it is spent. Sides: off, on, records, times, listener
// (a pty.data listener that does nothing: the event objects alone), same (off again: an A/A test of the pairing).
import { readdirSync, readFileSync } from 'node:fs';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { createPtyService, Timeline } from '@ptydeck/core';
import { headOf, makeDataFiles } from './lib/data.mjs';
import { collectGarbage, createWorkspace, deferred, MiB, now, withDeadline } from './lib/harness.mjs';
import { threadSplit, threadTimes } from './lib/thread-cpu.mjs';

const [pairsArg = '12', mibArg = '200', sidesArg = 'on'] = process.argv.slice(2);
const pairs = Number(pairsArg);
const sides = sidesArg.split(',');

const gcs = [];
const observer = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcs.push({ start: entry.startTime, ms: entry.duration, major: entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR });
});
observer.observe({ entryTypes: ['gc'] });

/** Each thread's minor page faults and user and system ticks (10 ms), by tid, from /proc/self/task/<tid>/stat. */
function threadFaults() {
  const byTid = {};
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      byTid[tid] = { minflt: Number(fields[7]), utime: Number(fields[11]), stime: Number(fields[12]) };
    } catch {}
  }
  return byTid;
}

/** One ingest of `file` on a new service; `side` says what listens. */
async function ingest(side, file, workspace) {
  const service = createPtyService({ env: workspace.env });
  const timeline = side === 'listener' || side === 'off' || side === 'same' ? new Timeline(service, { records: false, chunkTimes: false }) : new Timeline(service, { records: side !== 'times', chunkTimes: side !== 'records' });
  const offListener = side === 'listener' ? service.on('pty.data', () => {}) : () => {};
  const exited = deferred();
  // Chunks handed to the service's output path, counted the same way on both sides (the method is the service's own).
  let chunks = 0;
  const onData = service.onData;
  service.onData = function (...args) {
    chunks++;
    return onData.apply(this, args);
  };
  try {
    // GC=1: a full GC before each ingest, as fig13-timeline.mjs does.
    if (process.env.GC === '1') collectGarbage();
    const cpu = process.cpuUsage();
    const threads = threadTimes();
    const faults = threadFaults();
    const usage = process.resourceUsage();
    const started = now();
    // Markers for V8's own traces (--trace-deopt, --trace-gc), which go to stdout too.
    if (process.env.MARK) process.stdout.write(`## ingest ${side} start\n`);
    const { id } = service.create({ command: file.command ?? 'cat', args: file.args ?? [file.path], cwd: workspace.home, source: 'agent' });
    const off = service.on('pty.exited', (event) => event.id === id && exited.resolve());
    await withDeadline(exited.promise, 300_000, 'ingest');
    off();
    const ended = now();
    if (process.env.MARK) process.stdout.write(`## ingest ${side} end\n`);
    const threadsAfter = threadTimes();
    const faultsAfter = threadFaults();
    const usageAfter = process.resourceUsage();
    const { main, others } = threadSplit(process.pid, threads, threadsAfter);
    // The read thread: the busiest thread other than the main one.
    const readTid = Object.keys(threadsAfter)
      .filter((tid) => tid !== String(process.pid))
      .sort((a, b) => threadsAfter[b].cpuMs - (threads[b]?.cpuMs ?? 0) - (threadsAfter[a].cpuMs - (threads[a]?.cpuMs ?? 0)))[0];
    const faultDelta = (tid) => (faultsAfter[tid]?.minflt ?? 0) - (faults[tid]?.minflt ?? 0);
    const used = process.cpuUsage(cpu);
    const bytes = service.read(id, { maxBytes: 1 }).end;
    // GC entries come to the observer after the GC: a turn or two later.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const mine = gcs.filter((gc) => gc.start >= started && gc.start <= ended);
    const mb = bytes / 1e6;
    const read = others[0] ?? { cpuMs: 0, voluntary: 0, forced: 0 };
    return {
      bytes,
      mbps: mb / ((ended - started) / 1000),
      cpu: (used.user + used.system) / 1000 / mb,
      user: used.user / 1000 / mb,
      system: used.system / 1000 / mb,
      main: main.cpuMs / mb,
      read: read.cpuMs / mb,
      second: (others[1]?.cpuMs ?? 0) / mb,
      third: (others[2]?.cpuMs ?? 0) / mb,
      rest: others.slice(3).reduce((sum, t) => sum + t.cpuMs, 0) / mb,
      threads: others.filter((t) => t.cpuMs > 0).length,
      mainSwitches: (main.voluntary + main.forced) / mb,
      readSwitches: (read.voluntary + read.forced) / mb,
      chunks: chunks / mb,
      mainFaults: faultDelta(String(process.pid)) / mb,
      readFaults: faultDelta(readTid) / mb,
      faults: (usageAfter.minorPageFault - usage.minorPageFault) / mb,
      gcCount: mine.length,
      majorGcs: mine.filter((gc) => gc.major).length,
      gcMs: mine.reduce((sum, gc) => sum + gc.ms, 0) / mb,
    };
  } finally {
    offListener();
    timeline.dispose();
    await service.dispose();
  }
}

/** The mean of the middle 60% (as lib/paired-ratio.mjs does with logs), of differences. */
function trimmedMean(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const drop = Math.floor(sorted.length * 0.2);
  const kept = sorted.slice(drop, sorted.length - drop);
  return kept.reduce((a, b) => a + b, 0) / kept.length;
}

const workspace = createWorkspace();
try {
  const data = makeDataFiles(workspace.data, { plainBytes: Number(mibArg) * MiB, sgrBytes: MiB, scaleBytes: MiB, scrollbackLines: 10, agentLogBytes: MiB });
  for (const side of ['off', ...sides]) await ingest(side, headOf(data.plain, 16 * MiB), workspace);
  const results = Object.fromEntries(sides.map((side) => [side, []]));
  const keys = ['cpu', 'user', 'system', 'main', 'read', 'second', 'third', 'rest', 'threads', 'chunks', 'faults', 'mainFaults', 'readFaults', 'mainSwitches', 'readSwitches', 'gcCount', 'majorGcs', 'gcMs', 'mbps'];
  for (let i = 0; i < pairs; i++) {
    for (const side of sides) {
      const order = i % 2 === 0 ? [side, 'off'] : ['off', side];
      const pair = {};
      for (const which of order) pair[which === 'off' ? 'off' : 'on'] = await ingest(which, data.plain, workspace);
      results[side].push(pair);
      process.stderr.write(
        `pair ${i + 1} ${side} (${order.join(' then ')}): ${keys.map((k) => `${k} ${pair.on[k].toFixed(2)}/${pair.off[k].toFixed(2)}`).join(', ')}\n`,
      );
    }
  }
  for (const side of sides) {
    const list = results[side];
    process.stdout.write(`\n${side} against off, ${list.length} pairs: trimmed mean of (side - off), and of the sides\n`);
    for (const key of keys) {
      const diff = trimmedMean(list.map((p) => p.on[key] - p.off[key]));
      const onMean = trimmedMean(list.map((p) => p.on[key]));
      const offMean = trimmedMean(list.map((p) => p.off[key]));
      process.stdout.write(`  ${key.padEnd(13)} diff ${diff.toFixed(3).padStart(8)}   ${side} ${onMean.toFixed(3).padStart(8)}   off ${offMean.toFixed(3).padStart(8)}\n`);
    }
    const ratios = list.map((p) => p.off.cpu / p.on.cpu).map(Math.log);
    process.stdout.write(`  CPU off/on (paired-ratio) ${Math.exp(trimmedMean(ratios)).toFixed(4)}\n`);
  }
} finally {
  observer.disconnect();
  workspace.dispose();
}
