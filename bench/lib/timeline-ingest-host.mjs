// Figure 13's ingest, one side in a fresh process: a PtyService with a Timeline whose records and chunk times are on
// or off (`--timeline=on|off`), a warm-up of its own, then the measured `cat`. The figure starts one of these per
// ingest, so both sides run in equal conditions: a new process, the same warm-up, nothing left by the other side or
// by the figures before (the bench process had run twelve figures, and in a --repeat run every figure of the runs
// before, when figure 13's ingests ran in it; bench/README.md, "Figure 13's fresh processes").
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createPtyService, Timeline } from '@ptydeck/core';
import { collectGarbage, deferred, now, withDeadline } from './harness.mjs';
import { send, serveOps } from './host-rpc.mjs';
import { threadSplit, threadTimes } from './thread-cpu.mjs';

const { values } = parseArgs({ options: { timeline: { type: 'string' } } });
if (values.timeline !== 'on' && values.timeline !== 'off') throw new Error(`--timeline takes on or off, not ${values.timeline}`);
const on = values.timeline === 'on';
const INGEST_MS = 300_000;

// The main isolate's GCs: per ingest, how many and how long they paused it.
const gcs = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcs.push({ start: entry.startTime, ms: entry.duration, major: entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR });
}).observe({ entryTypes: ['gc'] });

const ops = {
  /** One `cat` on a new service with the timeline on or off: its bytes, MB/s, CPU per MB (process, main thread) and GCs. */
  ingest: ({ file, args, cwd, env }) => ingest(file, args, cwd, env),
  stop: () => {
    setImmediate(() => process.exit(0));
    return true;
  },
};

async function ingest(command, args, cwd, env) {
  const service = createPtyService({ env });
  const timeline = new Timeline(service, { records: on, chunkTimes: on });
  const exited = deferred();
  try {
    // No collection owed from the warm-up (bench/README.md, "Figure 13's asymmetry").
    collectGarbage();
    const cpu = process.cpuUsage();
    const threads = threadTimes();
    const started = now();
    const { id } = service.create({ command, args, cwd, source: 'agent' });
    const off = service.on('pty.exited', (event) => event.id === id && exited.resolve());
    await withDeadline(exited.promise, INGEST_MS, 'timeline ingest');
    off();
    const ended = now();
    const used = process.cpuUsage(cpu);
    const { main } = threadSplit(process.pid, threads, threadTimes());
    const bytes = service.read(id, { maxBytes: 1 }).end;
    const mb = bytes / 1e6;
    // perf_hooks reports a GC a turn or so after it: after the measure, so the wait is not in it.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const mine = gcs.filter((gc) => gc.start >= started && gc.start <= ended);
    const gcMs = mine.reduce((sum, gc) => sum + gc.ms, 0);
    const seconds = (ended - started) / 1000;
    return {
      bytes,
      seconds,
      mbps: mb / seconds,
      cpuMsPerMB: (used.user + used.system) / 1000 / mb,
      mainMsPerMB: main.cpuMs / mb,
      gcs: mine.length,
      majorGcs: mine.filter((gc) => gc.major).length,
      gcMsPerMB: gcMs / mb,
    };
  } finally {
    timeline.dispose();
    await service.dispose();
  }
}

serveOps(ops);
process.on('disconnect', () => process.exit(0));
send({ event: 'ready', pid: process.pid });
