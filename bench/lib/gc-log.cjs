// Preloaded (node --require) by bench/remote-keys.mjs with BENCH_GC_LOG=<dir>: each GC pause of this process, one JSON
// line each ({ start: epoch ms, ms, kind }), appended to <dir>/<role>-<pid>.jsonl. Only the main thread's isolate.
const { appendFileSync } = require('node:fs');
const { PerformanceObserver, constants } = require('node:perf_hooks');
const path = require('node:path');

const dir = process.env.BENCH_GC_LOG;
if (dir) {
  const role = process.argv.includes('panel-channel') ? 'panel-channel' : path.basename(process.argv[1] ?? 'node');
  const file = path.join(dir, `${role}-${process.pid}.jsonl`);
  const kinds = { [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor', [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major', [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental', [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb' };
  const observer = new PerformanceObserver((list) => {
    const lines = list.getEntries().map((entry) => JSON.stringify({ start: performance.timeOrigin + entry.startTime, ms: entry.duration, kind: kinds[entry.detail?.kind] ?? String(entry.detail?.kind) }));
    try {
      appendFileSync(file, `${lines.join('\n')}\n`);
    } catch {
      // Not ours to fail the process over.
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  observer.unref?.();
}
