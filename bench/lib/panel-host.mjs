// Figure 3's panel, and figures 5's and 10's: a PanelClient in a fresh process
// of its own, started for the figure, which types into a session of the core's
// host and times each key there (from the input message sent to its echo's
// output frame), as raw-host.mjs times the raw echo. In figures 5 and 10 it is
// also the panel attached to every flooding session, counting their bytes. Typed from the bench process, the core's
// keys paid for that process's state after the figures before (in runs 2 and
// 3 of a --repeat run, every figure of the runs before), and the raw keys,
// timed in raw-host.mjs, did not (bench/README.md, "Figure 3's panel").
import { constants as perfConstants, PerformanceObserver } from 'node:perf_hooks';
import { collectGarbage, withDeadline } from './harness.mjs';
import { PanelClient } from './panel-client.mjs';
import { send, serveOps } from './host-rpc.mjs';

let client;
/** Figures 5's and 10's keys during a flood (floodKeysStart to floodKeysStop). */
let flood;
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
  /**
   * Figures 5 and 10: keys typed into session `id` one after another from key index `from` until
   * floodKeysStop (and at least `minKeys` after floodSpawned); those before floodSpawned are kept apart.
   */
  floodKeysStart: ({ id, from, minKeys }) => {
    const f = { id, samples: [], spawningSamples: [], spawned: false, done: false, ids: [] };
    f.loop = (async () => {
      for (let i = from; f.samples.length < minKeys || !f.done; i++) {
        const duringSpawns = !f.spawned;
        const ms = await client.echoLatency(id, i);
        (duringSpawns ? f.spawningSamples : f.samples).push(ms);
      }
    })();
    f.loop.catch(() => {}); // floodKeysStop reports it
    flood = f;
    return true;
  },
  /** The flooding sessions are created: this panel attaches to each from its start; keys count from here. */
  floodSpawned: ({ ids }) => {
    flood.spawned = true;
    flood.ids = ids;
    for (const id of ids) client.attach(id, 0);
    return true;
  },
  /** Resolves once every flooding session's bytes, delivered or skipped by a resync, reach its end (`ends`: id to end). */
  floodAccounted: ({ ends, ms }) =>
    client.until(
      () => flood.ids.every((id) => ends[id] !== undefined && client.stream(id).bytes + client.stream(id).skipped >= ends[id]),
      ms,
      'every flood byte accounted for',
    ).then(() => true),
  /** Ends the keys; their times, the echo session's resyncs, each flooding stream's counts and this process's GCs since `collect`. */
  floodKeysStop: async () => {
    flood.done = true;
    await withDeadline(flood.loop, 30_000, 'keystrokes during the flood');
    return {
      samples: flood.samples,
      spawningSamples: flood.spawningSamples,
      echoResyncs: client.stream(flood.id).resyncs,
      sessions: flood.ids.map((id) => ({ id, ...client.stream(id) })),
      gcs,
    };
  },
  stop: async () => {
    await client?.close();
    setImmediate(() => process.exit(0));
    return true;
  },
};

serveOps(ops);
process.on('disconnect', () => process.exit(0));
send({ event: 'ready', pid: process.pid });
