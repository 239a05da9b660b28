// `node bench/echo-tail.mjs <checkout>[+warm][,<checkout>[+warm]] [rounds] [keys]`:
// figure 3's keystroke echo, taken apart to find what its slowest keys are
// made of, and compared across checkouts in one run. Per round, one core host
// of each checkout (its own build) and one raw node-pty host are started, and
// keys go to them in turn, key by key (the order rotating), so every side sees
// the same load. The keys to the cores are typed from this process, fresh as
// figure 3's panel-host.mjs is, and stamped in the hosts too (input reached
// PtyService.write, echo's pty.data), so each slow key splits into client to
// host, PTY and back into the host, and host to client; the hosts' and this
// process's GC pauses are matched to the slow keys. Per checkout: p50, p90,
// p99, max, keys over 1, 2 and 4 ms, the slowest keys' parts (with their
// index: early keys are the JIT's), each host thread's CPU and wake-ups over
// the keys (main, then the others busiest first: the screen worker is the one
// with about one wake-up per 10 to 20 ms, V8's helpers the ones with few), and
// the threads' CPU by fifth of the keys. `+warm`: that host finishes its
// screen worker's warm-up and every process collects its heap before the keys.
// WARMUP=<keys> (default 50, figure 3's); with BENCH_CPU_PROF, what each host's
// main thread did during its slowest keys and its busy runs of TURN_MS (1) or
// more; MARK=1 prints markers around the keys for BENCH_HOST_FLAGS=--trace-gc. Each host also names what else
// its loop ran inside each key's span (timers and immediates by where they were armed, I/O by kind) and who
// kept its loop watch ticking; naming a timer costs the host a stack trace, so CPU comparisons take CALLBACKS=0.
import { PerformanceObserver, constants as perfConstants } from 'node:perf_hooks';
import path from 'node:path';
import { createWorkspace, runCleanups, summarize } from './lib/harness.mjs';
import { startRawHost } from './lib/hosts.mjs';
import { PanelClient } from './lib/panel-client.mjs';
import { longTurns, matchProfile, newestProfile } from './lib/profile-match.mjs';
import { threadSplit, threadTimes } from './lib/thread-cpu.mjs';
import { ECHO_PROGRAM, keyFor } from './lib/raw-pty.mjs';

// `<checkout>+warm`: that side's host finishes its screen worker's warm-up, and every process of the round
// collects its heap, before the keys (as a host that has run a while).
const specs = (process.argv[2] ?? '.').split(',');
const checkouts = specs.map((c) => path.resolve(c.replace(/\+warm$/, '')));
const warm = specs.map((c) => c.endsWith('+warm'));
const rounds = Number(process.argv[3] ?? 3);
const keysPerRound = Number(process.argv[4] ?? 1000);
const WARMUP = Number(process.env.WARMUP ?? 50);
const SLOW = 10;
const wall = () => performance.timeOrigin + performance.now();

const ownPauses = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) ownPauses.push({ at: performance.timeOrigin + e.startTime, ms: e.duration, major: e.detail?.kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR });
}).observe({ entryTypes: ['gc'] });

const hostsOf = await Promise.all(checkouts.map((c) => import(path.join(c, 'bench/lib/hosts.mjs'))));
const totals = checkouts.map(() => ({ keys: [], slow: [] }));
const rawTotals = [];
const workspace = createWorkspace();
try {
  for (let r = 0; r < rounds; r++) await round(r);
} finally {
  await runCleanups();
  workspace.dispose();
}
console.log('\nall rounds:');
for (let c = 0; c < checkouts.length; c++) console.log(`  ${checkouts[c]}: ${stats(totals[c].keys.map((k) => k.total))}`);
console.log(`  raw: ${stats(rawTotals)}`);

function stats(samples) {
  const s = summarize(samples);
  const over = (ms) => samples.filter((v) => v > ms).length;
  return `n ${s.n} p50 ${s.p50.toFixed(3)} p90 ${s.p90?.toFixed(3) ?? '-'} p99 ${s.p99.toFixed(2)} max ${s.max.toFixed(2)} ms; >1 ms ${over(1)}, >2 ms ${over(2)}, >4 ms ${over(4)}`;
}

async function round(r) {
  const load = (await import('node:fs')).readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  const sides = [];
  const raw = await startRawHost(workspace);
  try {
    for (let c = 0; c < checkouts.length; c++) {
      const host = await hostsOf[c].startCoreHost(workspace);
      const client = await PanelClient.connect(host.ready.url, host.ready.panelToken);
      const id = await client.startEcho(host, workspace.home, WARMUP);
      sides.push({ c, host, client, id, keys: [] });
    }
    const [file, args] = ECHO_PROGRAM;
    const rawId = await raw.request('echoStart', { file, args, env: workspace.env, cwd: workspace.home });
    for (let i = 0; i < WARMUP; i++) await raw.request('echoKey', { id: rawId, i });
    if (warm.some(Boolean)) {
      for (const side of sides) if (warm[side.c]) await side.host.request('screensWarmed');
      for (const side of sides) if (warm[side.c]) await side.host.request('memory', { gc: true });
      await raw.request('memory', { gc: true });
      globalThis.gc?.();
    }
    for (const side of sides) await side.host.request('echoTraceStart', { id: side.id, callbacks: process.env.CALLBACKS !== '0' });
    const rawKeys = [];
    const rawSlow = [];
    for (const side of sides) side.threads = threadTimes(side.host.pid);
    const rawThreads = threadTimes(raw.pid);
    const ownFrom = ownPauses.length;
    const order = [...sides.map((s) => s.c), 'raw'];
    if (process.env.MARK) console.log('@@ KEYS START');
    const windows = sides.map(() => []);
    const WINDOW = Math.ceil(keysPerRound / 5);
    let marks = sides.map((side) => threadTimes(side.host.pid));
    for (let i = 0; i < keysPerRound; i++) {
      if (i > 0 && i % WINDOW === 0) {
        if (process.env.MARK) console.log(`@@ FIFTH ${i / WINDOW}`);
        sides.forEach((side, n) => {
          const at = threadTimes(side.host.pid);
          const { main, others } = threadSplit(side.host.pid, marks[n], at);
          windows[n].push(`${main.cpuMs.toFixed(0)}/${others.reduce((sum, t) => sum + t.cpuMs, 0).toFixed(0)}`);
          marks[n] = at;
        });
      }
      const shift = i % order.length;
      for (const which of [...order.slice(shift), ...order.slice(0, shift)]) {
        if (which === 'raw') {
          const ms = await raw.request('echoKey', { id: rawId, i });
          rawKeys.push(ms);
          rawSlow.push({ i, ms });
          continue;
        }
        const side = sides[which];
        const s = side.client.stream(side.id);
        const target = s.next + 1;
        const sent = wall();
        side.client.send({ type: 'input', id: side.id, data: keyFor(i) });
        await side.client.until(() => s.next >= target, 10_000, 'echo');
        side.keys.push({ sent, got: wall() });
      }
    }
    if (process.env.MARK) console.log('@@ KEYS END');
    const own = ownPauses.slice(ownFrom);
    const thread = (t) => `${t.cpuMs.toFixed(0)} ms/${t.voluntary} waits`;
    const threadsOf = (pid, before) => {
      const { main, others } = threadSplit(pid, before, threadTimes(pid));
      return `main ${thread(main)}, others ${others.slice(0, 4).map(thread).join(', ')}`;
    };
    for (const side of sides) side.threadLine = threadsOf(side.host.pid, side.threads);
    const rawThreadLine = threadsOf(raw.pid, rawThreads);
    console.log(`round ${r + 1}, load ${load}:`);
    for (const side of sides) {
      const trace = await side.host.request('echoTraceStop');
      const keys = side.keys.map((key, i) => {
        const tin = trace.inputs[i];
        const tout = trace.outputs.find((t) => t >= tin);
        const posted = trace.posts.some((at) => at >= tin && at <= tout);
        // What else the host's loop ran in the key's span: callbacks begun after its input's write and before its
        // echo's read (the one that read the echo holds tout).
        const others = trace.ran.filter((cb) => cb.at > tin && cb.at < tout && cb.at + cb.ms < tout);
        return { ...key, i, total: key.got - key.sent, toHost: tin - key.sent, pty: tout - tin, back: key.got - tout, posted, others };
      });
      totals[side.c].keys.push(...keys);
      const overlaps = (pauses, key) => pauses.filter((p) => p.at < key.got && p.at + p.ms > key.sent);
      const slow = [...keys].sort((a, b) => b.total - a.total).slice(0, SLOW);
      const hostGc = slow.filter((k) => overlaps(trace.pauses, k).length > 0).length;
      const ownGc = slow.filter((k) => overlaps(own, k).length > 0).length;
      const mean = (part) => (slow.reduce((sum, k) => sum + k[part], 0) / slow.length).toFixed(2);
      console.log(`  ${specs[side.c]}: ${stats(keys.map((k) => k.total))}`);
      console.log(
        `    host CPU ${trace.cpuMs.toFixed(0)} ms (main ${trace.mainThreadCpuMs}), GCs: ${trace.gc.minor.n} scavenges (${trace.gc.minor.ms.toFixed(1)} ms, max ${trace.gc.minor.max.toFixed(2)}), ${trace.gc.major.n} mark-compacts (${trace.gc.major.ms.toFixed(1)} ms)`,
      );
      console.log(`    threads: ${side.threadLine}; main/others ms by fifth of the keys: ${windows[side.c].join(' ')}`);
      const parts = ['toHost', 'pty', 'back'].map((part) => {
        const s = summarize(keys.map((k) => k[part]));
        return `${part} p90 ${s.p90.toFixed(2)} p99 ${s.p99.toFixed(2)}`;
      });
      console.log(`    every key's parts: ${parts.join(', ')} ms`);
      const slowPosted = slow.filter((k) => k.posted).length;
      console.log(`    worker posts ${trace.posts.length}, inside a key's span (its input's write to its echo's read) ${keys.filter((k) => k.posted).length} keys, ${slowPosted} of the slowest ${SLOW}`);
      console.log(`    slowest ${SLOW}: mean to host ${mean('toHost')}, PTY and back ${mean('pty')}, host to client ${mean('back')} ms; with a host GC ${hostGc}, with a client GC ${ownGc}`);
      const kinds = new Map();
      // Per kind of callback (nextTicks and microtasks are the key's own turns): keys with one in their span, and of those
      // the keys over 1 ms, against the keys over 1 ms of all.
      const ownTurn = (cb) => cb.what === 'TickObject' || cb.what === 'Microtask';
      for (const key of keys) for (const what of new Set(key.others.filter((cb) => !ownTurn(cb)).map((cb) => cb.what))) kinds.set(what, [...(kinds.get(what) ?? []), key]);
      const slowShare = (list) => `${list.filter((k) => k.total > 1).length}/${list.length}`;
      console.log(`    keys with other callbacks in their span ${keys.filter((k) => k.others.some((cb) => !ownTurn(cb))).length}; keys > 1 ms of all ${slowShare(keys)}; by kind (> 1 ms/keys): ${[...kinds].sort((a, b) => b[1].length - a[1].length).map(([what, list]) => `${what} ${slowShare(list)}`).join('; ')}`);
      for (const k of slow.filter((key) => key.others.some((cb) => !ownTurn(cb)))) console.log(`      #${k.i}: ${k.others.filter((cb) => !ownTurn(cb)).map((cb) => `${cb.what} ${cb.ms.toFixed(2)}`).join('; ')}`);
      if (Object.keys(trace.keeps).length > 0) console.log(`    the loop watch kept by: ${Object.entries(trace.keeps).map(([who, n]) => `${who} ${n}`).join('; ')}`);
      side.slow = slow;
      side.wallMinusMonotonic = trace.wallMinusMonotonic;
      console.log(`      ${slow.map((k) => `#${k.i} ${k.total.toFixed(1)}=${k.toHost.toFixed(1)}+${k.pty.toFixed(1)}+${k.back.toFixed(1)}${k.posted ? 'w' : ''}`).join(' ')}`);
    }
    console.log(`  raw: ${stats(rawKeys)}; threads: ${rawThreadLine}; client GCs meanwhile ${own.length} (${own.reduce((s, p) => s + p.ms, 0).toFixed(1)} ms)`);
    rawTotals.push(...rawKeys);
    console.log(`    slowest: ${rawSlow.sort((a, b) => b.ms - a.ms).slice(0, SLOW).map((k) => `#${k.i} ${k.ms.toFixed(1)}`).join(' ')}`);
  } finally {
    for (const side of sides) {
      await side.client.close();
      await side.host.stop();
      if (process.env.BENCH_CPU_PROF && side.slow) {
        console.log(`  ${checkouts[side.c]}'s host:`);
        const file = newestProfile(process.env.BENCH_CPU_PROF, side.host.pid);
        matchProfile(side.slow, side.wallMinusMonotonic, file);
        longTurns(file, side.keys[0].sent, side.keys.at(-1).got, side.wallMinusMonotonic, Number(process.env.TURN_MS ?? 1));
      }
    }
    await raw.stop();
  }
}
