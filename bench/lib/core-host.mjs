// The ptydeck host in its own process, started as every host is (startHost,
// host/start-host.ts), driven by the bench over IPC through the host's
// diagnostics (its PTY service and screens, in this process only).
//
// The host runs apart from the bench's clients because that is how it runs
// for real (`ptydeck host`, with the panel in a renderer and agents in their
// own processes), so clients and host do not share an event loop, and so its
// RSS can be read on its own.
//
// Host options that exist for measurement: --screens=main parses the screens
// on the host's main thread, lazily, as before the screen worker (figure 5's
// before/after in the same run); --max-sessions raises the PTY service's
// bound on live sessions. --persist=on keeps a session store (issue 24) in
// the state directory, as a host does unless config.json or PTYDECK_PERSIST
// says otherwise: figure 10 runs the same flood with it on and off.
import { appendFileSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import { constants as perfConstants, monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { startHost } from '@ptydeck/core';
import { SCREEN_WORKER_OPTIONS } from '../../packages/core/dist/screen/screen-worker-host.js';
import { countLoopWatchKeeps, recordCallbacks, watchLongCallbacks } from './loop-callbacks.mjs';
import { watchMemory } from './memory-probe.mjs';
import { spawnTurnsOf } from '../../packages/core/dist/pty/spawn-turns.js';
import { send, serveOps } from './host-rpc.mjs';
import { spawnBash } from './spawn-bash.mjs';

const { values } = parseArgs({
  options: {
    screens: { type: 'string', default: 'worker' },
    'max-sessions': { type: 'string', default: '32' },
    'state-dir': { type: 'string' },
    persist: { type: 'string', default: 'off' },
  },
});

// The shipped screen worker, started from a file that also answers the memory probe (memory-probe.mjs).
let screenWorker;
let screenWorkerMemory;
const probedWorker = () => {
  screenWorker = new Worker(new URL('./screen-worker-probe.mjs', import.meta.url), SCREEN_WORKER_OPTIONS);
  screenWorker.on('message', (message) => {
    if (message?.type === 'memory-probe') screenWorkerMemory = message.memory;
  });
  return screenWorker;
};
// A state directory of its own per host: two hosts of one run may overlap, and one started after another starts empty.
const host = await startHost({
  stateDir: path.join(values['state-dir'] ?? '.', `host-${process.pid}`),
  port: 0,
  appDir: '/nonexistent',
  persist: values.persist === 'on',
  limits: { maxLiveSessions: Number(values['max-sessions']), maxExitedSessions: 256 },
  screenThread: values.screens === 'main' ? 'main' : 'worker',
  // The shipped screen worker, started from a file that also answers the memory probe (memory-probe.mjs).
  screenWorkerSpawn: () => probedWorker(),
});
const { service, screens, storeDir } = host.diagnostics;

// Session exits, with the final log end so the bench can account for every byte.
service.on('pty.exited', (event) => {
  const end = service.read(event.id, { maxBytes: 1 }).end;
  send({ event: 'exited', id: event.id, end, exitCode: event.exitCode });
});

const LOOP_RESOLUTION_MS = 1;
let loopDelay;
/**
 * BENCH_LOOP_WINDOWS=<file> (in the host's environment: BENCH_HOST_ENV): each
 * delay window's start and stop, and each turn of the loop in it that kept a
 * 1 ms timer waiting over 15 ms, in the monotonic microseconds a --cpu-prof
 * profile's timestamps use, so a profile's samples in those turns say what
 * held the loop (bench/late-turns.mjs).
 */
const LONG_TURN_US = BigInt(process.env.BENCH_LATE_US ?? 15_000);
let turnWatch;
/** The main thread's time on a CPU (us), from its schedstat: a late turn's own work, apart from its waits for a CPU. */
let schedFd;
const schedBuf = Buffer.alloc(96);
const mainCpuUs = () => {
  schedFd ??= openSync(`/proc/self/task/${process.pid}/schedstat`, 'r');
  const n = readSync(schedFd, schedBuf, 0, schedBuf.length, 0);
  return BigInt(schedBuf.toString('latin1', 0, n).split(' ')[0]) / 1000n;
};
/** Called before a window's histogram is enabled and after it is disabled: the file is written outside every window. */
const traceWindow = (what) => {
  const file = process.env.BENCH_LOOP_WINDOWS;
  if (!file) return;
  const at = process.hrtime.bigint() / 1000n;
  if (what === 'start') {
    // Each turn of the loop that kept a 1 ms timer waiting over LONG_TURN_US: from its previous tick to this one.
    const watch = { start: at, long: [], last: at, cpu: mainCpuUs() };
    watch.timer = setInterval(() => {
      const now = process.hrtime.bigint() / 1000n;
      const cpu = mainCpuUs();
      if (now - watch.last > LONG_TURN_US) watch.long.push([watch.last, now, cpu - watch.cpu]);
      watch.last = now;
      watch.cpu = cpu;
    }, 1);
    turnWatch = watch;
    return;
  }
  if (!turnWatch) return;
  clearInterval(turnWatch.timer);
  const lines = [`start ${turnWatch.start}`, `stop ${at}`, ...turnWatch.long.map(([from, to, cpu]) => `late ${from} ${to} ${cpu}`)];
  appendFileSync(file, lines.map((line) => `${process.pid} ${line}\n`).join(''));
  turnWatch = undefined;
};

let stopMemoryWatch;
let probeTimer;

/**
 * Bytes the sessions' logs retain (through the service's API), and what the
 * buffers holding them occupy (a look inside the service, for diagnosis only:
 * undefined once its fields are named otherwise).
 */
function logBytes({ buffers = true } = {}) {
  let bytes = 0;
  for (const info of service.list()) {
    try {
      const { cursor, end } = service.read(info.id, { maxBytes: 1 });
      bytes += end - cursor;
    } catch {
      // removed meanwhile
    }
  }
  return { retained: bytes, buffers: buffers ? logBuffers() : undefined };
}

function logBuffers() {
  const sessions = service.sessions;
  if (!(sessions instanceof Map)) return undefined;
  const seen = new Set();
  let bytes = 0;
  for (const session of sessions.values()) {
    const chunks = session.log?.chunks;
    if (!Array.isArray(chunks)) return undefined;
    for (let i = session.log.head ?? 0; i < chunks.length; i++) {
      const buffer = chunks[i].buffer;
      if (seen.has(buffer)) continue;
      seen.add(buffer);
      bytes += buffer.byteLength;
    }
  }
  return bytes;
}

// Subscribed only while someone waits, so the hot path is the server's own otherwise.
const endWaiters = new Map();
let offData;
function watchEnds() {
  offData ??= service.on('pty.data', (event) => {
    const waiters = endWaiters.get(event.id);
    if (!waiters) return;
    const end = event.cursor + event.data.length;
    for (const w of [...waiters]) {
      if (end < w.target) continue;
      waiters.delete(w);
      w.resolve(end);
    }
    if (waiters.size === 0) endWaiters.delete(event.id);
    if (endWaiters.size === 0) {
      offData();
      offData = undefined;
    }
  });
}

/**
 * Where a typed key's time goes in this process (bench/echo-trace.mjs): when
 * its input reached the service and when its echo came back from the PTY, on
 * the wall clock the bench's client also stamps with, so a slow key splits
 * into client to host, PTY and back, and host to client; with the process's
 * and its main thread's CPU time and V8's GCs meanwhile.
 */
let echoTrace;
/** BENCH_READ_CALLBACKS=<file>: the loop's long callbacks, for figure 5's slow reads (loop-callbacks.mjs). */
const longCallbacks = process.env.BENCH_READ_CALLBACKS ? watchLongCallbacks() : undefined;
const wallNow = () => performance.timeOrigin + performance.now();
/** CPU time of this process's main thread (ms), from its own stat line: the thread keys wait for. */
const mainThreadCpuMs = () => {
  const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

/**
 * The main thread's GCs so far, by kind (count and pause ms), counted from the
 * first gcCounts request on: compare-delivery.mjs reads them around each
 * delivery, to count what a MB delivered costs in collections.
 */
let gcTotals;
const gcCounts = () => {
  if (!gcTotals) {
    gcTotals = { minor: { n: 0, ms: 0 }, major: { n: 0, ms: 0 }, other: { n: 0, ms: 0 } };
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        const kind = entry.detail?.kind;
        const bucket = kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR ? gcTotals.major : kind === perfConstants.NODE_PERFORMANCE_GC_MINOR ? gcTotals.minor : gcTotals.other;
        bucket.n++;
        bucket.ms += entry.duration;
      }
    }).observe({ entryTypes: ['gc'] });
  }
  const { external, arrayBuffers, heapUsed } = process.memoryUsage();
  return { ...structuredClone(gcTotals), external, arrayBuffers, heapUsed };
};

/**
 * The main thread's allocations, sampled (V8's sampling heap profiler, every
 * `interval` bytes on average), counting what the GC has already collected:
 * where the garbage a delivery leaves comes from. Stops with the bytes by
 * function (self, top 40), which compare-delivery.mjs prints with
 * BENCH_ALLOC_PROFILE=1.
 */
let allocSession;
const allocSampleStart = async ({ interval = 4096 } = {}) => {
  const { Session } = await import('node:inspector/promises');
  allocSession = new Session();
  allocSession.connect();
  await allocSession.post('HeapProfiler.startSampling', { samplingInterval: interval, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  return true;
};
const allocSampleStop = async () => {
  const { profile } = await allocSession.post('HeapProfiler.stopSampling');
  allocSession.disconnect();
  allocSession = undefined;
  const bySite = new Map();
  let total = 0;
  const walk = (node, stack) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const here = `${functionName || '(anonymous)'} ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}`;
    const path = [...stack, here].slice(-3);
    if (node.selfSize > 0) {
      const key = path.join(' < ');
      bySite.set(key, (bySite.get(key) ?? 0) + node.selfSize);
      total += node.selfSize;
    }
    for (const child of node.children) walk(child, path);
  };
  walk(profile.head, []);
  return { total, top: [...bySite].sort((a, b) => b[1] - a[1]).slice(0, 40) };
};

const ops = {
  /** Figure 4's baseline, in a host started for it: one `bash -c` spawned from a process of the host's size, timed here. */
  spawnBash: (args) => spawnBash(args),
  rss: () => process.memoryUsage().rss,
  create: ({ input }) => service.create({ source: 'user', ...input }).id,
  /** Every creation in the turn the request arrived in: how the core served a burst before spawns took turns. */
  createMany: ({ inputs }) => inputs.map((input) => service.create({ source: 'user', ...input }).id),
  /** As the product serves a burst of requests (terminal_create, a panel's create, terminal/create): through the spawn queue. */
  createTaking: ({ inputs }) => Promise.all(inputs.map((input) => spawnTurnsOf(service).run(() => service.create({ source: 'user', ...input }).id))),
  end: ({ id }) => service.read(id, { maxBytes: 1 }).end,
  /** How far the session's screen has parsed its log: where a slow resync's time went. */
  parsedThrough: ({ id }) => screens.parsedThrough(id) ?? null,
  // Once the screen worker's warm-up is over, as in a host that has run a while (figure 6).
  screensWarmed: () => screens.warmedUp(),
  /** The agent tool's screen read (terminal_read mode "screen" reads ScreenService.text): ms until it resolves. */
  screenRead: async ({ id }) => {
    const started = performance.now();
    const from = process.hrtime.bigint() / 1000n;
    await screens.text(id);
    const ms = performance.now() - started;
    if (longCallbacks && ms > 25) {
      const inside = longCallbacks.ran.filter((cb) => cb.at + cb.ms > started && cb.at < started + ms);
      appendFileSync(process.env.BENCH_READ_CALLBACKS, `${JSON.stringify({ screens: values.screens, ms, inside })}\n`);
    }
    // A slow read, in the windows' file and clock: the profiles say what the threads did meanwhile.
    if (process.env.BENCH_LOOP_WINDOWS && ms > 25) appendFileSync(process.env.BENCH_LOOP_WINDOWS, `${process.pid} read ${from} ${process.hrtime.bigint() / 1000n} ${id}\n`);
    return ms;
  },
  /** Resolves once the session's log reaches `target` bytes. */
  waitForEnd: ({ id, target }) => {
    const end = service.read(id, { maxBytes: 1 }).end;
    if (end >= target) return end;
    return new Promise((resolve) => {
      let set = endWaiters.get(id);
      if (!set) endWaiters.set(id, (set = new Set()));
      set.add({ target, resolve });
      watchEnds();
    });
  },
  /** Starts stamping session `id`'s input and output (see echoTrace). */
  echoTraceStart: ({ id, callbacks = true }) => {
    const write = service.write.bind(service);
    const inputs = [];
    const outputs = [];
    service.write = (sid, data, from) => {
      if (sid === id) inputs.push(wallNow());
      return write(sid, data, from);
    };
    const offData = service.on('pty.data', (event) => {
      if (event.id === id) outputs.push(wallNow());
    });
    // Every post to a worker (the screen worker's slices): one inside a key's span woke a thread while the echo waited.
    const posts = [];
    const postMessage = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function stampedPost(...args) {
      posts.push(wallNow());
      return postMessage.apply(this, args);
    };
    const gc = { major: { n: 0, ms: 0, max: 0 }, minor: { n: 0, ms: 0, max: 0 } };
    const pauses = [];
    const gcs = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        const kind = entry.detail?.kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR ? gc.major : entry.detail?.kind === perfConstants.NODE_PERFORMANCE_GC_MINOR ? gc.minor : undefined;
        if (!kind) continue;
        kind.n++;
        kind.ms += entry.duration;
        kind.max = Math.max(kind.max, entry.duration);
        // Each pause on the wall clock, to match it to the keys it held (echo-tail.mjs).
        pauses.push({ at: performance.timeOrigin + entry.startTime, ms: entry.duration, major: kind === gc.major });
      }
    });
    gcs.observe({ entryTypes: ['gc'] });
    // Every callback the loop ran, and who kept the loop watch ticking (loop-callbacks.mjs): what ran inside a
    // slow key's span (echo-tail.mjs).
    const callbacksRan = recordCallbacks({ now: wallNow, named: callbacks });
    const watchKeeps = countLoopWatchKeeps(service.loop);
    const cpu = process.cpuUsage();
    const mainCpu = mainThreadCpuMs();
    echoTrace = () => {
      const ran = callbacksRan.stop();
      const keeps = watchKeeps.stop();
      offData();
      gcs.disconnect();
      service.write = write;
      Worker.prototype.postMessage = postMessage;
      const { user, system } = process.cpuUsage(cpu);
      // The monotonic clock CPU profiles stamp their samples with, against the wall clock: to find a key in a profile.
      const wallMinusMonotonic = wallNow() - Number(process.hrtime.bigint()) / 1e6;
      return { inputs, outputs, posts, ran, keeps, wallMinusMonotonic, cpuMs: (user + system) / 1000, mainThreadCpuMs: mainThreadCpuMs() - mainCpu, gc, pauses };
    };
    return true;
  },
  echoTraceStop: () => {
    if (!echoTrace) throw new Error('echoTraceStart first');
    const result = echoTrace();
    echoTrace = undefined;
    return result;
  },
  /** Starts recording this process's event-loop delay (figure 8): one window at a time. */
  loopDelayStart: () => {
    loopDelay?.disable();
    loopDelay = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
    traceWindow('start');
    loopDelay.enable();
    return true;
  },
  /**
   * Ends the window: the delay's max, p99, p50 (ms) and sample count. The
   * histogram holds the time between ticks of a 1 ms timer, so 1 ms is
   * subtracted: what is left is how late the loop was.
   */
  loopDelayStop: () => {
    if (!loopDelay) throw new Error('loopDelayStart first');
    loopDelay.disable();
    traceWindow('stop');
    const late = (ns) => Math.max(0, ns / 1e6 - LOOP_RESOLUTION_MS);
    const result = { max: late(loopDelay.max), p99: late(loopDelay.percentile(99)), p50: late(loopDelay.percentile(50)), samples: loopDelay.count };
    loopDelay = undefined;
    return result;
  },
  /** Starts sampling where this process's memory is (memory-probe.mjs): one window at a time. */
  memoryWatchStart: () => {
    stopMemoryWatch?.();
    clearInterval(probeTimer);
    screenWorkerMemory = undefined;
    // As often as the probe's costly reads (memory-probe.mjs): each message wakes the worker, and in a CPU
    // profile of figure 5's flood posting it every 50 ms weighed a twentieth of the main thread's busy samples.
    probeTimer = setInterval(() => screenWorker?.postMessage({ type: 'memory-probe' }), 500);
    stopMemoryWatch = watchMemory({ logBytes, worker: () => screenWorkerMemory });
    return true;
  },
  /** Ends the window: the sample at the highest RSS, and each measure's own maximum. */
  memoryWatchStop: () => {
    if (!stopMemoryWatch) throw new Error('memoryWatchStart first');
    clearInterval(probeTimer);
    const result = stopMemoryWatch();
    stopMemoryWatch = undefined;
    return result;
  },
  /** CPU time this process used so far (user + system, ms): to tell a CPU-bound core from a waiting one. */
  gcCounts,
  allocSampleStart,
  allocSampleStop,
  cpu: () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  },
  memory: ({ gc }) => {
    if (gc && global.gc) global.gc();
    return process.memoryUsage();
  },
  remove: async ({ id }) => {
    await service.remove(id);
    return true;
  },
  removeAll: async () => {
    await Promise.all(service.list().map((info) => service.remove(info.id)));
    return true;
  },
  /** Ms until the session store has everything the sessions printed on disk: how far behind its turns were. */
  storeFlush: async () => {
    const started = performance.now();
    await host.diagnostics.persisted();
    return performance.now() - started;
  },
  /** Bytes the session store has on disk (output and metadata): what persistence wrote and kept. */
  // A file the store is replacing (written under a temporary name, then renamed) may be gone between the listing and its stat.
  storedBytes: () => (storeDir ? readdirSync(storeDir).reduce((sum, name) => sum + (statSync(path.join(storeDir, name), { throwIfNoEntry: false })?.size ?? 0), 0) : 0),
  stop: async () => {
    await host.close();
    setImmediate(() => process.exit(0));
    return true;
  },
};

serveOps(ops);
// The bench went away: do not outlive it.
process.on('disconnect', () => {
  void host.close().finally(() => process.exit(0));
});

send({ event: 'ready', url: host.url, agentToken: host.agentToken, panelToken: host.panelToken, pid: process.pid, stateDir: host.stateDir });
