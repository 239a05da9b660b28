// Where a core host's memory is: sampled inside the host (bench/lib/core-host.mjs)
// while a figure runs, so the bench README's breakdown of figure 5's peak is
// measured, not guessed. Per sample: the process's RSS and its kinds
// (/proc/self/status; smaps_rollup's are read from outside, see smapsFields),
// the main isolate's heap and external memory, the
// bytes the sessions' logs retain, and the screen worker's own heap as it
// reports it (screen-worker-probe.mjs). The sample kept is the one with the
// highest RSS; each field's own maximum is kept beside it.
import { readFileSync } from 'node:fs';
import v8 from 'node:v8';

const SAMPLE_MS = 50;
/**
 * The costly read runs every this many samples, its last value carried in
 * between: the logs' buffers (every chunk of every session). Every 50 ms it
 * and smaps_rollup held the core's main thread for several milliseconds
 * during figure 5's flood, a tenth of its busy time in a CPU profile, in
 * front of the keys the figure times; the raw baseline has no such probe.
 * smaps_rollup (the kernel walks every mapping's pages: 2.6 ms of CPU, 3.6
 * ms of wall time at 400 MiB unloaded, far more under a flood) is now read
 * by the bench process instead (smapsFields, fig5-scale.mjs): every tenth
 * sample here it was still most of what the probe held the main thread for
 * (bench/README.md, "Figure 5's slow screen reads"). The peak RSS comes from
 * /proc/self/status (and from outside, fig5-scale.mjs), read at every sample.
 */
const DETAIL_EVERY = 10;
/** Every this many samples one goes into the timeline (ms since the start, then the maxima's fields in MiB). */
const TIMELINE_EVERY = 5;

/** Fields of a /proc file of `Name:   123 kB` lines, in bytes (none off Linux). */
function kbFields(file, names) {
  const fields = {};
  try {
    const text = readFileSync(file, 'utf8');
    for (const name of names) {
      const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text);
      if (match) fields[name] = Number(match[1]) * 1024;
    }
  } catch {
    // not Linux, or the process is gone
  }
  return fields;
}

/**
 * A process's resident memory by kind (smaps_rollup), in bytes: read from
 * another process, so the kernel's walk of its pages is not a stall of its
 * main thread.
 */
export function smapsFields(pid) {
  return kbFields(`/proc/${pid}/smaps_rollup`, ['Anonymous', 'Private_Dirty', 'Shared_Clean', 'Private_Clean']);
}

/** /proc/self/status fields, in bytes. */
function procMemory() {
  return kbFields('/proc/self/status', ['VmRSS', 'VmHWM', 'RssAnon', 'RssFile']);
}

function isolateMemory() {
  const usage = process.memoryUsage();
  // Per space: bytes in use, and bytes the space holds (committed).
  const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().filter((s) => s.space_size > 0).map((s) => [s.space_name, [s.space_used_size, s.space_size]]));
  return { heapTotal: usage.heapTotal, heapUsed: usage.heapUsed, external: usage.external, arrayBuffers: usage.arrayBuffers, spaces };
}

/**
 * Samples every SAMPLE_MS until stopped. `logBytes({ buffers })` sums what the logs
 * retain ({ retained, buffers }, the buffers only when asked); `worker()` is the screen
 * worker's last report (or undefined). Returns the stop function, which resolves with
 * { peak, max, samples, probeMs }: probeMs, the wall time the samples took on this thread.
 */
export function watchMemory({ logBytes, worker }) {
  let peak;
  const max = {};
  let samples = 0;
  const timeline = [];
  const started = performance.now();
  let probeMs = 0;
  let buffers;
  const sample = (last = false) => {
    const from = performance.now();
    const detailed = last || samples % DETAIL_EVERY === 0;
    const proc = procMemory();
    const main = isolateMemory();
    const logs = logBytes({ buffers: detailed });
    if (detailed) buffers = logs?.buffers;
    const at = { ...proc, main, logBytes: logs && { ...logs, buffers }, worker: worker() };
    samples++;
    const flat = { rss: proc.VmRSS, mainHeapUsed: main.heapUsed, mainHeapTotal: main.heapTotal, mainExternal: main.external, logRetained: at.logBytes?.retained, logBuffers: at.logBytes?.buffers, workerHeapUsed: at.worker?.heapUsed, workerHeapTotal: at.worker?.heapTotal, workerExternal: at.worker?.external };
    if (samples % TIMELINE_EVERY === 1) timeline.push([Math.round(performance.now() - started), ...Object.values(flat).map((v) => Math.round((v ?? 0) / 1048576))]);
    for (const [key, value] of Object.entries(flat)) if (Number.isFinite(value)) max[key] = Math.max(max[key] ?? 0, value);
    if (!peak || proc.VmRSS > peak.VmRSS) peak = at;
    probeMs += performance.now() - from;
  };
  sample();
  const timer = setInterval(sample, SAMPLE_MS);
  return () => {
    clearInterval(timer);
    sample(true);
    return { peak, max, samples, probeMs, timeline, mappingsAtEnd: mappings() };
  };
}

/** The screen worker's side: its isolate's heap, for the probe message the bench sends it. */
export function workerMemory() {
  return isolateMemory();
}

/**
 * The process's resident memory by kind of mapping (/proc/self/smaps), in
 * bytes: glibc's heap and its per-thread arenas (64 MiB reservations), thread
 * stacks, files (code), and the rest (V8's pages, mostly).
 */
export function mappings() {
  let text;
  try {
    text = readFileSync('/proc/self/smaps', 'utf8');
  } catch {
    return undefined;
  }
  const kinds = {};
  let kind;
  for (const line of text.split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      const size = parseInt(head[2], 16) - parseInt(head[1], 16);
      const name = head[3];
      kind = name === '[heap]' ? 'brk heap' : name.startsWith('[stack') ? 'stack' : name.startsWith('/') ? 'files' : name ? name : size >= 60 * 1024 * 1024 && size <= 64 * 1024 * 1024 ? 'arena' : 'anon';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && kind) kinds[kind] = (kinds[kind] ?? 0) + Number(rss[1]) * 1024;
  }
  return kinds;
}
