// Figure 10: what persistence costs. Figure 5's flood (N sessions each
// printing the scale file to one panel client attached to all of them, every
// byte accounted for) with the session store recording every session (as a
// host does unless PTYDECK_PERSIST=0) and without it, in the same run,
// alternating which goes first so the machine's drift falls on both: the
// flood's throughput, the core's CPU time for it, and the keystroke echo on
// an (N+1)th session while it floods (keys typed while the sessions are
// created are counted apart, as figure 5 does). Baseline: persistence off.
import { rmSync } from 'node:fs';
import { MiB, median, now, row, summarize } from './lib/harness.mjs';
import { startCoreHost } from './lib/hosts.mjs';
import { KEY_P99_TARGET_MS, MIN_KEYS, WARMUP_KEYS, exitEnds, startFloodPanel } from './fig5-scale.mjs';
import { pairedRatio } from './lib/paired-ratio.mjs';

/** Flood throughput with persistence on, as a share of the same flood's without it. */
const THROUGHPUT_TARGET = 0.8;
/**
 * Pairs of floods (off and on), an even number so each side goes first as often (off, on / on, off / on, off /
 * off, on: a drift over the figure falls on both); the throughput's ratio is the pairs' (lib/paired-ratio.mjs),
 * the value and baseline columns the sides' medians (bench/README.md, "Figure 10's method").
 */
const PAIRS = 4;
/** Which side goes first in each pair: ABBA, then BAAB. */
const ORDER = [
  ['off', 'on'],
  ['on', 'off'],
  ['on', 'off'],
  ['off', 'on'],
];

export async function run(ctx) {
  const { sizes, data } = ctx;
  const n = sizes.scaleSessions;
  // A quick run floods twice each way.
  const pairs = Math.min(PAIRS, 2 * sizes.reps);
  const floods = { on: [], off: [] };
  for (let pair = 0; pair < pairs; pair++) {
    for (const persist of ORDER[pair % ORDER.length]) floods[persist].push(await flood(ctx, persist));
  }
  const bytes = n * data.scale.ptyBytes;
  const throughput = (runs) => median(runs.map((r) => bytes / MiB / r.seconds));
  const cpu = (runs) => median(runs.map((r) => r.cpuMs / 1000));
  const keys = (runs) => summarize(runs.flatMap((r) => r.samples));
  const spawningKeys = (runs) => summarize(runs.flatMap((r) => r.spawningSamples));
  const on = { throughput: throughput(floods.on), cpu: cpu(floods.on), keys: keys(floods.on), spawningKeys: spawningKeys(floods.on) };
  const off = { throughput: throughput(floods.off), cpu: cpu(floods.off), keys: keys(floods.off), spawningKeys: spawningKeys(floods.off) };
  const stored = median(floods.on.map((r) => r.storedBytes));
  const catchUp = median(floods.on.map((r) => r.catchUpMs));
  const atEnd = median(floods.on.map((r) => r.storedAtEnd));
  // Per pair, the two floods ran minutes apart at most: the machine's drift over the figure falls on both.
  const ratio = pairedRatio(floods.on.map((r, i) => floods.off[i].seconds / r.seconds));
  const rows = [
    row({
      figure: '10',
      metric: `${n} sessions x ${(data.scale.bytes / MiB).toFixed(2)} MiB flood throughput, persistence on (MiB/s)`,
      value: on.throughput,
      baseline: off.throughput,
      target: `>= ${THROUGHPUT_TARGET}x off`,
      pass: ratio >= THROUGHPUT_TARGET,
      ratio,
      note: `medians of ${pairs} floods each; ratio: the ${pairs} alternated pairs' (mean of the middle 60%, lib/paired-ratio.mjs)`,
    }),
    row({ figure: '10', metric: '  core CPU time for the flood, persistence on (s)', value: on.cpu, baseline: off.cpu }),
    row({
      figure: '10',
      metric: '  store behind at the flood\'s end: time to write the rest (ms)',
      value: catchUp,
      note: `${(atEnd / MiB).toFixed(1)} MiB on disk at the end, ${(stored / MiB).toFixed(1)} MiB after (a kill at the end loses the difference)`,
    }),
    row({
      figure: '10',
      metric: `  keystroke echo p99 on session ${n + 1} during the flood, persistence on (ms)`,
      value: on.keys.p99,
      baseline: off.keys.p99,
      target: `< ${KEY_P99_TARGET_MS} ms`,
      pass: on.keys.p99 < KEY_P99_TARGET_MS,
      note: `${on.keys.n} keys; p50 ${on.keys.p50.toFixed(1)} / ${off.keys.p50.toFixed(1)} ms; while the sessions were being created (not counted, as in figure 5) max ${on.spawningKeys.max.toFixed(1)} / ${off.spawningKeys.max.toFixed(1)} ms`,
    }),
  ];
  return { rows, details: { pairs, on, off, storedBytes: stored, storedAtEnd: atEnd, catchUpMs: catchUp, floods } };
}

/** One flood of the scale file in N sessions, with keys typed into one more meanwhile. */
async function flood(ctx, persist) {
  const { workspace, sizes, data } = ctx;
  const n = sizes.scaleSessions;
  const host = await startCoreHost(workspace, { maxSessions: n + 8, persist });
  let panel;
  try {
    let echoId;
    ({ panel, echoId } = await startFloodPanel(ctx, host));
    const exits = exitEnds(host);
    const cpuBefore = await host.request('cpu');
    const started = now();
    // Keys sent while the sessions are created are counted apart, as figure 5 counts them (figure 9 times those).
    await panel.request('floodKeysStart', { id: echoId, from: WARMUP_KEYS, minKeys: MIN_KEYS });
    const ids = await host.request('createTaking', {
      inputs: Array.from({ length: n }, () => ({ command: 'cat', args: [data.scale.path], cwd: workspace.home })),
    });
    await panel.request('floodSpawned', { ids });
    await exits.all(ids, sizes.figureMs);
    await panel.request('floodAccounted', { ends: exits.ends, ms: sizes.figureMs }, sizes.figureMs + 5000);
    const seconds = (now() - started) / 1000;
    const cpuMs = (await host.request('cpu')) - cpuBefore;
    const { samples, spawningSamples, gcs: clientGcs } = await panel.request('floodKeysStop', {}, 35_000);
    exits.off();
    const ends = new Map(Object.entries(exits.ends));
    const short = ids.filter((id) => ends.get(id) !== data.scale.ptyBytes).length;
    if (short > 0) throw new Error(`${short} session(s) ended short of ${data.scale.ptyBytes} bytes`);
    // On disk at the flood's end, and what was still to write then (the loss bound's "write in flight").
    const storedAtEnd = await host.request('storedBytes');
    const catchUpMs = await host.request('storeFlush');
    const storedBytes = await host.request('storedBytes');
    ctx.log(
      `  persistence ${persist}: ${n} floods in ${seconds.toFixed(1)} s, core CPU ${(cpuMs / 1000).toFixed(1)} s, ${samples.length} keys (+${spawningSamples.length} during the spawns), store ${(storedAtEnd / MiB).toFixed(1)} MiB at the end, ${(storedBytes / MiB).toFixed(1)} MiB after ${catchUpMs.toFixed(0)} ms; the panel client's GCs ${clientGcs.n} (max ${clientGcs.max.toFixed(1)} ms)`,
    );
    return { seconds, cpuMs, samples, spawningSamples, storedAtEnd, storedBytes, catchUpMs, clientGcs };
  } finally {
    await panel?.stop();
    await host.stop();
    // The store's files go with the host (its state directory is its own): up to 64 MiB written in the flood, whose
    // writeback the kernel would start about 30 s later, on whichever flood ran then.
    if (host.ready?.stateDir) rmSync(host.ready.stateDir, { recursive: true, force: true });
  }
}
