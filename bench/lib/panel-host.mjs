// Figure 3's panel: a PanelClient in a fresh process of its own, started for
// the figure, which types into a session of the core's host and times each
// key there (from the input message sent to its echo's output frame), as
// raw-host.mjs times the raw echo. Typed from the bench process, the core's
// keys paid for that process's state after the figures before (in runs 2 and
// 3 of a --repeat run, every figure of the runs before), and the raw keys,
// timed in raw-host.mjs, did not (bench/README.md, "Figure 3's panel").
import { constants as perfConstants, PerformanceObserver } from 'node:perf_hooks';
import { collectGarbage } from './harness.mjs';
import { PanelClient } from './panel-client.mjs';
import { send, serveOps } from './host-rpc.mjs';

let client;
/** This process's GC pauses since the last `collect`: what the core's keys waited for here, not in the core. */
let gcs = { n: 0, majors: 0, ms: 0, max: 0 };
let countFrom = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    // Entries arrive after the fact: the collection `collect` made itself is reported once it returned.
    if (entry.startTime < countFrom) continue;
    gcs.n++;
    if (entry.detail?.kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR) gcs.majors++;
    gcs.ms += entry.duration;
    gcs.max = Math.max(gcs.max, entry.duration);
  }
}).observe({ entryTypes: ['gc'] });

const ops = {
  /** Connects to the core's host as a panel does (its snapshot in hand). */
  connect: async ({ url, token }) => {
    client = await PanelClient.connect(url, token);
    return true;
  },
  /** Attaches to the echo program's session from its start; ready once it printed (its R). */
  echoAttach: async ({ id }) => {
    client.attach(id, 0);
    const stream = client.stream(id);
    await client.until(() => stream.bytes >= 1, 10_000, 'echo program ready');
    return true;
  },
  /** One keystroke round trip, timed here: input message sent to the echoed byte's frame received, in ms. */
  echoKey: ({ id, i }) => client.echoLatency(id, i),
  /**
   * A full GC of this process before the keys, and the count of its GCs restarted: the heap that loading
   * `ws` and connecting left owed a mark-compact (10 to 20 ms, at load 10) in every figure 3 run, in the
   * middle of the keys, on one of the core's keys (bench/README.md, "Figure 3's tails").
   */
  collect: () => {
    collectGarbage();
    gcs = { n: 0, majors: 0, ms: 0, max: 0 };
    countFrom = performance.now();
    return true;
  },
  gcs: () => gcs,
  stop: async () => {
    await client?.close();
    setImmediate(() => process.exit(0));
    return true;
  },
};

serveOps(ops);
process.on('disconnect', () => process.exit(0));
send({ event: 'ready', pid: process.pid });
