// Figure 5: scale. N concurrent sessions each printing a file (1 MiB of text
// in the full run) to one panel client attached to all of them, with every
// byte accounted for (delivered, or reported skipped by a resync, adding up to
// exactly what the program wrote); the core's RSS while it runs; keystroke
// echo latency on an (N+1)th session during the flood, while an agent reads
// the flooding sessions' screens back to back (terminal_read mode "screen");
// the core's event-loop delay meanwhile; and idle memory per session.
// Baseline: the same PTYs on raw node-pty in a process of its own. The flood
// runs twice in the core: screens parsed in the screen worker (as shipped)
// and on the main thread (as before it), for a before/after in the same run.
import { MiB, median, now, row, summarize, withDeadline } from './lib/harness.mjs';
import { startCoreHost, startPanelHost, startRawHost } from './lib/hosts.mjs';
import { ECHO_PROGRAM } from './lib/raw-pty.mjs';
import { smapsFields } from './lib/memory-probe.mjs';

// Figure 10 floods the same way, with the same keys and target.
export const KEY_P99_TARGET_MS = 50;
const SCREEN_READ_P99_TARGET_MS = 50;
const MIN_SCREEN_READS = 20;
const IDLE_TARGET_MB = 2;
/** The core's peak RSS during the flood (issue 34): logs, screens, buffers and two worker threads together. */
const PEAK_RSS_TARGET_MIB = 250;
export const WARMUP_KEYS = 20;
export const MIN_KEYS = 100;
const RSS_SAMPLE_MS = 50;

export async function run(ctx) {
  const idle = await idleMemory(ctx);
  const flood = await floodCore(ctx, 'worker');
  const floodMain = await floodCore(ctx, 'main');
  const floodRaw = await floodBaseline(ctx);
  const { sizes, data } = ctx;
  const n = sizes.scaleSessions;
  const keys = summarize(flood.samples);
  const keysMain = summarize(floodMain.samples);
  const reads = summarize(flood.screenReads);
  const readsMain = summarize(floodMain.screenReads);
  const rawKeys = summarize(floodRaw.samples);
  const spawning = summarize(flood.spawningSamples);
  const expected = n * data.scale.ptyBytes;
  const short = flood.sessions.filter((s) => s.end !== data.scale.ptyBytes || s.bytes + s.skipped !== s.end || s.orderErrors > 0);
  const delivered = flood.sessions.reduce((a, s) => a + s.bytes, 0);
  const skipped = flood.sessions.reduce((a, s) => a + s.skipped, 0);
  const mb = (bytes) => bytes / MiB;
  const rows = [
    row({
      figure: '5',
      metric: `${n} sessions x ${(data.scale.bytes / MiB).toFixed(2)} MiB to a panel: every byte accounted for (sessions short)`,
      value: short.length,
      target: '0',
      pass: short.length === 0,
      note: `delivered ${mb(delivered).toFixed(1)} MiB + skipped by resync ${mb(skipped).toFixed(1)} MiB = ${mb(expected).toFixed(1)} MiB written`,
    }),
    row({ figure: '5', metric: `  flood wall time, all ${n} done (s)`, value: flood.seconds, baseline: floodRaw.seconds }),
    row({
      figure: '5',
      metric: '  core peak RSS during the flood (MiB)',
      value: mb(flood.peakRss),
      baseline: mb(floodRaw.peakRss),
      target: `<= ${PEAK_RSS_TARGET_MIB} MiB`,
      pass: mb(flood.peakRss) <= PEAK_RSS_TARGET_MIB,
      note: memoryNote(flood.memory),
    }),
    row({
      figure: '5',
      metric: `  keystroke echo p99 on session ${n + 1} during the flood (ms)`,
      value: keys.p99,
      baseline: rawKeys.p99,
      target: `< ${KEY_P99_TARGET_MS} ms`,
      pass: keys.p99 < KEY_P99_TARGET_MS,
      note: `screens on the main thread: ${keysMain.p99.toFixed(1)} ms${flood.echoResyncs > 0 ? `; the typing session was resynced ${flood.echoResyncs} time(s)` : ''}`,
    }),
    row({ figure: '5', metric: `  keystroke echo p50 during the flood, ${keys.n} keys (ms)`, value: keys.p50, baseline: rawKeys.p50 }),
    row({
      figure: '5',
      metric: `  agent screen read p99 during the flood, ${reads.n} reads (ms)`,
      value: reads.p99,
      baseline: readsMain.p99,
      target: `< ${SCREEN_READ_P99_TARGET_MS} ms`,
      pass: reads.p99 < SCREEN_READ_P99_TARGET_MS,
      note: `baseline: screens on the main thread (${readsMain.n} reads); p50 ${reads.p50.toFixed(1)} / ${readsMain.p50.toFixed(1)} ms`,
    }),
    row({
      figure: '5',
      metric: '  core event-loop delay p99 during the flood (ms)',
      value: flood.loopDelay.p99,
      baseline: floodMain.loopDelay.p99,
      note: `baseline: screens on the main thread; max ${flood.loopDelay.max.toFixed(0)} / ${floodMain.loopDelay.max.toFixed(0)} ms`,
    }),
    row({
      figure: '5',
      metric: `  keystroke echo max while the ${n} sessions were being created (ms)`,
      value: spawning.max,
      note: `${spawning.n} keys; creating took ${flood.spawnMs.toFixed(0)} ms`,
    }),
    row({
      figure: '5',
      metric: `idle memory per session, ${sizes.idleSessions} shells (MiB)`,
      value: idle.core,
      baseline: idle.raw,
      target: `< ${IDLE_TARGET_MB} MiB above raw`,
      pass: idle.core - idle.raw < IDLE_TARGET_MB,
      note: `${(idle.core - idle.raw).toFixed(2)} MiB above raw`,
    }),
  ];
  return {
    rows,
    details: {
      idle,
      flood: { ...flood, samples: keys, screenReads: reads, spawningSamples: spawning, sessions: undefined, delivered, skipped, expected, short: short.length, resyncs: flood.sessions.reduce((a, s) => a + s.resyncs, 0) },
      floodMainThreadScreens: { ...floodMain, samples: keysMain, screenReads: readsMain, spawningSamples: undefined, sessions: undefined },
      floodRaw: { ...floodRaw, samples: rawKeys, bytes: undefined, bytesPerSession: median(floodRaw.bytes) },
    },
  };
}

function shell(workspace) {
  return { command: workspace.bash, args: ['--norc', '--noprofile', '-i'], cwd: workspace.home };
}

/**
 * RSS after a forced GC, with no sessions and with K idle shells at their
 * prompt, in the core and in a raw node-pty process: per-session growth of each.
 */
async function idleMemory(ctx) {
  const { workspace, sizes } = ctx;
  const k = sizes.idleSessions;
  const sh = shell(workspace);
  const core = await startCoreHost(workspace, { maxSessions: k + 8 });
  let coreBefore;
  let coreAfter;
  try {
    coreBefore = (await core.request('memory', { gc: true })).rss;
    const ids = await core.request('createMany', { inputs: Array.from({ length: k }, () => sh) });
    await Promise.all(ids.map((id) => core.request('waitForEnd', { id, target: 1 }, 60_000)));
    coreAfter = (await core.request('memory', { gc: true })).rss;
  } finally {
    await core.stop();
  }
  const raw = await startRawHost(workspace);
  let rawBefore;
  let rawAfter;
  try {
    rawBefore = (await raw.request('memory', { gc: true })).rss;
    const ids = await raw.request('spawnMany', { spawns: Array.from({ length: k }, () => ({ file: sh.command, args: sh.args, cwd: sh.cwd, env: workspace.env })) });
    await raw.request('waitOutput', { ids }, 60_000);
    rawAfter = (await raw.request('memory', { gc: true })).rss;
  } finally {
    await raw.stop();
  }
  const perSession = (before, after) => (after - before) / k / MiB;
  return { sessions: k, core: perSession(coreBefore, coreAfter), raw: perSession(rawBefore, rawAfter), coreBefore, coreAfter, rawBefore, rawAfter };
}

/** Every this many RSS samples, the host's smaps_rollup too (the kernel walks every page: milliseconds). */
const SMAPS_EVERY = 10;

/**
 * Samples the host's RSS from outside every RSS_SAMPLE_MS, and its smaps_rollup every SMAPS_EVERY-th
 * time: read here, not by the host's own probe, so the kernel's walk of its pages is not a stall of
 * the main thread the figure's keys and screen reads wait for (memory-probe.mjs). The stop function
 * returns the peak RSS (VmHWM at the end included); `smapsAtPeak()` the smaps fields read last before
 * or at the highest RSS sample.
 */
function sampleRss(host) {
  let peak = 0;
  let samples = 0;
  let smaps;
  let smapsAtPeak;
  const timer = setInterval(() => {
    try {
      if (samples++ % SMAPS_EVERY === 0) smaps = smapsFields(host.pid);
      const { rss } = host.memory();
      if (rss > peak) {
        peak = rss;
        smapsAtPeak = smaps;
      }
    } catch {
      // the host is gone
    }
  }, RSS_SAMPLE_MS);
  const stop = () => {
    clearInterval(timer);
    try {
      peak = Math.max(peak, host.memory().hwm);
    } catch {
      // the host is gone
    }
    return peak;
  };
  stop.smapsAtPeak = () => smapsAtPeak;
  return stop;
}

/**
 * Figures 5's and 10's panel: a panel client in a process of its own (panel-host.mjs), connected to
 * `host`, with the echo session (the (N+1)th) started, attached and warmed up, and the client's heap
 * collected before the keys. Typed from the bench process, the keys waited for its collections (35 in
 * one run of figure 5, up to 48.9 ms, on 3 of its 8 slowest keys): bench/README.md, figure 5.
 */
export async function startFloodPanel(ctx, host) {
  const panel = await startPanelHost(ctx.workspace);
  try {
    await panel.request('connect', { url: host.ready.url, token: host.ready.panelToken });
    const [file, args] = ECHO_PROGRAM;
    const echoId = await host.request('create', { input: { command: file, args, cwd: ctx.workspace.home } });
    await panel.request('echoAttach', { id: echoId });
    for (let i = 0; i < WARMUP_KEYS; i++) await panel.request('echoKey', { id: echoId, i });
    await panel.request('collect');
    return { panel, echoId };
  } catch (error) {
    await panel.stop();
    throw error;
  }
}

/** The flooding sessions' log ends as the host reports their exits; `all(ids, ms)` resolves once each has one. */
export function exitEnds(host) {
  const ends = {};
  let check = () => {};
  const off = host.onExited((event) => {
    ends[event.id] = event.end;
    check();
  });
  const all = (ids, ms) =>
    withDeadline(
      new Promise((resolve) => {
        check = () => ids.every((id) => id in ends) && resolve();
        check();
      }),
      ms,
      'every flooding session exited',
    );
  return { ends, all, off };
}

export async function floodCore(ctx, screens, hostOptions = {}) {
  const { workspace, sizes, data } = ctx;
  const n = sizes.scaleSessions;
  const host = await startCoreHost(workspace, { maxSessions: n + 8, screens, ...hostOptions });
  let panel;
  try {
    let echoId;
    ({ panel, echoId } = await startFloodPanel(ctx, host));
    const exits = exitEnds(host);
    const stopRss = sampleRss(host);
    await host.request('memoryWatchStart');
    await host.request('loopDelayStart');
    const started = now();
    let floodDone = false;
    // Keys sent while the sessions are created are counted apart (the raw baseline spawns before its keys).
    await panel.request('floodKeysStart', { id: echoId, from: WARMUP_KEYS, minKeys: MIN_KEYS });
    const spawnStarted = now();
    // As agents' and panels' requests are served: creations take turns with everything else (figure 9).
    const ids = await host.request('createTaking', {
      inputs: Array.from({ length: n }, () => ({ command: 'cat', args: [data.scale.path], cwd: workspace.home })),
    });
    const spawnMs = now() - spawnStarted;
    await panel.request('floodSpawned', { ids });
    // An agent reading the flooding sessions' screens, one read after another.
    const screenReads = [];
    const reading = (async () => {
      for (let i = 0; !floodDone || screenReads.length < MIN_SCREEN_READS; i++) {
        screenReads.push(await host.request('screenRead', { id: ids[i % ids.length] }));
      }
    })();
    await exits.all(ids, ctx.sizes.figureMs);
    await panel.request('floodAccounted', { ends: exits.ends, ms: ctx.sizes.figureMs }, ctx.sizes.figureMs + 5000);
    const seconds = (now() - started) / 1000;
    floodDone = true;
    const keys = await panel.request('floodKeysStop', {}, 35_000);
    await withDeadline(reading, 30_000, 'screen reads during the flood');
    const loopDelay = await host.request('loopDelayStop');
    const memory = { ...(await host.request('memoryWatchStop')), smapsAtPeak: stopRss.smapsAtPeak() };
    const peakRss = stopRss();
    exits.off();
    const sessions = keys.sessions.map((s) => ({ ...s, end: exits.ends[s.id] }));
    const { samples, spawningSamples, gcs: clientGcs } = keys;
    ctx.log(
      `  core, screens in the ${screens === 'main' ? 'main thread' : 'worker'}: ${n} floods in ${seconds.toFixed(1)} s (spawning took ${spawnMs.toFixed(0)} ms), peak RSS ${(peakRss / MiB).toFixed(0)} MiB, ${samples.length} keys (+${spawningSamples.length} during the spawns), ${screenReads.length} screen reads, loop delay p99 ${loopDelay.p99.toFixed(1)} ms; the panel client's GCs ${clientGcs.n} (${clientGcs.majors} mark-compacts, ${clientGcs.ms.toFixed(1)} ms, max ${clientGcs.max.toFixed(1)})`,
    );
    ctx.log(`  ${memoryLine(memory)}`);
    return { seconds, peakRss, memory, samples, spawningSamples, spawnMs, sessions, echoResyncs: keys.echoResyncs, screenReads, loopDelay, clientGcs };
  } finally {
    await panel?.stop();
    await host.stop();
  }
}

/** The peak's main parts, for the table's note (memoryLine has the rest). */
function memoryNote({ peak }) {
  const m = (bytes) => (Number.isFinite(bytes) ? (bytes / MiB).toFixed(0) : '-');
  return `at the peak: logs ${m(peak.logBytes?.retained)}, main heap ${m(peak.main.heapTotal)} + external ${m(peak.main.external)}, screen worker heap ${m(peak.worker?.heapTotal)} + external ${m(peak.worker?.external)} MiB`;
}

/** Where the core's memory was at its highest RSS sample (memory-probe.mjs), in MiB. */
function memoryLine({ peak, max }) {
  const m = (bytes) => (Number.isFinite(bytes) ? (bytes / MiB).toFixed(0) : '-');
  return [
    `memory at the peak sample: RSS ${m(peak.VmRSS)} (anon ${m(peak.RssAnon)}, file ${m(peak.RssFile)})`,
    `main heap ${m(peak.main.heapUsed)}/${m(peak.main.heapTotal)}, external ${m(peak.main.external)} (array buffers ${m(peak.main.arrayBuffers)})`,
    `logs ${m(peak.logBytes?.retained)} in buffers of ${m(peak.logBytes?.buffers)}`,
    `screen worker heap ${m(peak.worker?.heapUsed)}/${m(peak.worker?.heapTotal)}, external ${m(peak.worker?.external)}`,
    `maxima: ${Object.entries(max).map(([k, v]) => `${k} ${m(v)}`).join(', ')}`,
  ].join('; ');
}

async function floodBaseline(ctx) {
  const { workspace, sizes, data } = ctx;
  const host = await startRawHost(workspace);
  try {
    const [file, args] = ECHO_PROGRAM;
    const stopRss = sampleRss(host);
    const result = await host.request(
      'floodWithEcho',
      {
        echo: { file, args, env: workspace.env, cwd: workspace.home },
        floods: Array.from({ length: sizes.scaleSessions }, () => ({ file: 'cat', args: [data.scale.path], env: workspace.env, cwd: workspace.home })),
        minKeys: MIN_KEYS,
        warmupKeys: WARMUP_KEYS,
      },
      sizes.figureMs,
    );
    const peakRss = stopRss();
    ctx.log(`  raw: ${sizes.scaleSessions} floods in ${result.seconds.toFixed(1)} s, peak RSS ${(peakRss / MiB).toFixed(0)} MiB, ${result.samples.length} keys`);
    return { ...result, peakRss };
  } finally {
    await host.stop();
  }
}
