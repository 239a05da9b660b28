// Figure 2's delivery from two or more checkouts, interleaved in one run, for a before/after that shares
// the machine's moment: `node bench/compare-delivery.mjs <checkout>[|<node flags>],<checkout> [rounds] [plainMiB] [sgrMiB]`.
// Each checkout gets a host of its own (its bench/lib/hosts.mjs, with the node flags after a '|' if any)
// and a panel client of its own (its bench/lib/panel-client.mjs); each round delivers the plain and the
// colored file from every checkout, in an order that rotates. Prints per checkout and file the medians of
// the MB/s, the client's acks per MB, the host's CPU per MB delivered, in all and by thread
// (/proc/<pid>/task/*/schedstat, lib/thread-cpu.mjs), and the context switches per MB of its main thread and its busiest other
// thread (the read thread), that thread's time waiting for a CPU per MB, and the host main thread's GCs per delivery (scavenges, mark-compacts, pause ms per MB;
// its core-host.mjs gcCounts op, where it has one): on a loaded machine the CPU moves far less than the MB/s does. The bench's own
// figure 2 is `node bench/run.mjs --only=2`.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { panelDelivery } from './fig2-delivery.mjs';
import { threadSplit, threadTimes } from './lib/thread-cpu.mjs';

const [trees, roundsArg = '5', plainArg = '64', sgrArg = '32'] = process.argv.slice(2);
if (!trees) throw new Error('usage: node bench/compare-delivery.mjs <checkout>[,<checkout>...] [rounds] [plainMiB] [sgrMiB]');
const rounds = Number(roundsArg);

const checkouts = await Promise.all(
  trees.split(',').map(async (spec) => {
    const [dir, flags = ''] = spec.split('|');
    const tree = path.resolve(dir);
    return {
      tree,
      flags,
      name: flags ? `${path.basename(tree)} ${flags}` : path.basename(tree),
      harness: await import(path.resolve(tree, 'bench/lib/harness.mjs')),
      hosts: await import(path.resolve(tree, 'bench/lib/hosts.mjs')),
      panel: await import(path.resolve(tree, 'bench/lib/panel-client.mjs')),
      // The client figure 2 uses in that checkout (its CLIENT_OPTIONS, if it has them).
      clientOptions: (await import(path.resolve(tree, 'bench/fig2-delivery.mjs'))).CLIENT_OPTIONS,
    };
  }),
);
const { harness } = checkouts[0];
const { MiB, median } = harness;
const { makeDataFiles, headOf } = await import(path.resolve(checkouts[0].tree, 'bench/lib/data.mjs'));
const workspace = harness.createWorkspace();

/** CLOCK_MONOTONIC in microseconds: the clock of a --cpu-prof's timestamps on Linux. */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/**
 * The host's write system calls so far, all threads (/proc/<pid>/io's syscw): the frames' writev on the panel
 * socket, and the wake-ups of its threads' event loops (an eventfd write each), so a count, not the frames'.
 */
const writeCalls = (pid) => Number(/^syscw: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))[1]);

/**
 * BENCH_SYSCALLS=1: the host's main thread's writev and write calls over the delivery, counted by `perf stat`
 * on its tracepoints (one writev a frame written alone, one for a corked pump's frames; write: the eventfd
 * wake-ups of the read thread and screen worker). Undefined without it.
 */
function countMainSyscalls(pid) {
  if (!process.env.BENCH_SYSCALLS) return undefined;
  const perf = spawn('perf', ['stat', '-x', ',', '-e', 'syscalls:sys_enter_writev,syscalls:sys_enter_write', '-t', String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let text = '';
  perf.stderr.on('data', (chunk) => (text += chunk));
  return {
    async stop() {
      perf.kill('SIGINT');
      await once(perf, 'close');
      const count = (name) => Number(text.split('\n').find((line) => line.includes(name))?.split(',')[0]);
      return { writev: count('sys_enter_writev'), write: count('sys_enter_write,') };
    },
  };
}

/** The host's CPU by thread (main, then the others by rank, busiest first: the read thread, the screen worker, V8's helpers). */
function ranked({ main, others }) {
  return { main: main.cpuMs, ...Object.fromEntries(others.slice(0, 3).map((thread, i) => [`#${i + 1}`, thread.cpuMs])), rest: others.slice(3).reduce((a, t) => a + t.cpuMs, 0) };
}

/** One of figure 2's deliveries (fig2-delivery.mjs), with the host's threads read around it. */
async function deliver({ host, client }, file) {
  let threadsBefore;
  let split;
  let startedUs;
  let deliveredUs;
  let writesBefore;
  let writes;
  let counting;
  // The host's GCs (main thread) over the delivery, where its core-host.mjs counts them.
  const gcOf = () => host.request('gcCounts').catch(() => undefined);
  const gcBefore = await gcOf();
  const sampling = process.env.BENCH_ALLOC_PROFILE && (await host.request('allocSampleStart', {}).catch(() => false));
  const clientBefore = process.cpuUsage();
  const clientThreadsBefore = threadTimes();
  const result = await panelDelivery(host, client, file, workspace, {
    started: () => {
      counting = countMainSyscalls(host.pid);
      writesBefore = writeCalls(host.pid);
      threadsBefore = threadTimes(host.pid);
      startedUs = monotonicUs();
    },
    delivered: () => {
      split = threadSplit(host.pid, threadsBefore, threadTimes(host.pid));
      deliveredUs = monotonicUs();
      writes = writeCalls(host.pid) - writesBefore;
    },
  });
  // BENCH_WINDOWS=<file>: each delivery's span on the monotonic clock a host's --cpu-prof stamps its samples with
  // (microseconds), its bytes, acks and frames, so a profile's samples can be taken per delivery (see bench/README.md).
  if (process.env.BENCH_WINDOWS) appendFileSync(process.env.BENCH_WINDOWS, `${JSON.stringify({ host: host.pid, file: file.path ? path.basename(file.path) : String(file.args?.at(-1) ?? file.command), startUs: startedUs, endUs: deliveredUs, bytes: result.end, acks: result.acks, frames: result.frames })}\n`);
  const clientCpu = process.cpuUsage(clientBefore);
  const syscalls = await counting?.stop();
  // The client's wake-ups (its main thread's voluntary switches): each may preempt the read thread or cat.
  const clientMain = threadSplit(process.pid, clientThreadsBefore, threadTimes()).main;
  const threads = ranked(split);
  // Context switches (voluntary and not) of the main thread and of the busiest other one (the read thread).
  const busiest = split.others[0] ?? { voluntary: 0, forced: 0 };
  const mb = result.end / 1e6;
  const gcAfter = await gcOf();
  if (sampling) {
    // The sampled stacks are reversed (leaf first), three frames deep.
    const { total, top } = await host.request('allocSampleStop');
    console.error(`allocations ${(total / 1024 / mb).toFixed(1)} KiB per MB delivered (${file.path}); by site, KiB per MB:`);
    for (const [site, bytes] of top.slice(0, 25)) console.error(`  ${(bytes / 1024 / mb).toFixed(2).padStart(7)}  ${site.split(' < ').reverse().join(' < ')}`);
  }
  const gc = gcBefore && gcAfter
    ? { scavenges: gcAfter.minor.n - gcBefore.minor.n, markCompacts: gcAfter.major.n - gcBefore.major.n, pauseMsPerMB: (gcAfter.minor.ms + gcAfter.major.ms - gcBefore.minor.ms - gcBefore.major.ms) / mb, majorMs: gcAfter.major.ms - gcBefore.major.ms }
    : { scavenges: NaN, markCompacts: NaN, pauseMsPerMB: NaN, majorMs: NaN };
  return {
    gc,
    mbps: result.mbps,
    cpuMsPerMB: result.cpuMsPerMB,
    // The bench process: the panel client's reading, its acks, and the harness's requests.
    clientMsPerMB: (clientCpu.user + clientCpu.system) / 1000 / mb,
    threads: Object.fromEntries(Object.entries(threads).map(([name, ms]) => [name, ms / mb])),
    skipped: result.skipped,
    frames: result.frames,
    bytes: result.end,
    acksPerMB: result.acks === undefined ? NaN : result.acks / mb,
    writesPerMB: writes / mb,
    mainWritevPerMB: (syscalls?.writev ?? NaN) / mb,
    mainWritePerMB: (syscalls?.write ?? NaN) / mb,
    // The read thread's time runnable but waiting for a CPU: what the machine's other work took from it.
    queuedMsPerMB: (busiest.queuedMs ?? NaN) / mb,
    // The read thread's read calls and user-space time per MB (the rest of its CPU is the kernel's).
    readsPerMB: (busiest.reads ?? NaN) / mb,
    readUserMsPerMB: (busiest.userMs ?? NaN) / mb,
    // Wake-ups per MB of the host's threads other than the read thread (main, screen worker, V8's helpers), and of the client.
    wakes: { host: (split.main.voluntary + split.others.slice(1).reduce((a, t) => a + t.voluntary, 0)) / mb, client: clientMain.voluntary / mb },
    switches: { main: split.main.voluntary / mb, mainForced: split.main.forced / mb, '#1': busiest.voluntary / mb, '#1 forced': busiest.forced / mb },
  };
}

const setups = [];
try {
  const data = makeDataFiles(workspace.data, { plainBytes: Number(plainArg) * MiB, sgrBytes: Number(sgrArg) * MiB, scaleBytes: 4096, scrollbackLines: 10, agentLogBytes: 4096 });
  const benchFlags = process.env.BENCH_HOST_FLAGS;
  for (const checkout of checkouts) {
    process.env.BENCH_HOST_FLAGS = [benchFlags, checkout.flags].filter(Boolean).join(' ');
    const host = await checkout.hosts.startCoreHost(workspace);
    const client = await checkout.panel.PanelClient.connect(host.ready.url, host.ready.panelToken, process.env.BENCH_CLIENT === 'ws' ? {} : checkout.clientOptions);
    setups.push({ ...checkout, host, client, samples: { plain: [], sgr: [] } });
  }
  if (benchFlags === undefined) delete process.env.BENCH_HOST_FLAGS;
  else process.env.BENCH_HOST_FLAGS = benchFlags;
  for (const key of ['plain', 'sgr']) for (const setup of setups) await deliver(setup, headOf(data[key], 16 * MiB));
  const loadBefore = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < setups.length; k++) {
      const setup = setups[(k + round) % setups.length];
      for (const key of ['plain', 'sgr']) {
        const result = await deliver(setup, data[key]);
        setup.samples[key].push(result);
        console.error(
          `round ${round + 1} ${setup.name} ${key}: ${result.mbps.toFixed(1)} MB/s, core ${result.cpuMsPerMB.toFixed(2)} ms/MB (main ${result.threads.main.toFixed(2)},` +
            ` read thread ${result.threads['#1'].toFixed(2)}, its switches per MB ${result.switches['#1'].toFixed(0)}/${result.switches['#1 forced'].toFixed(0)}, waiting for a CPU ${result.queuedMsPerMB.toFixed(2)}, reads per MB ${result.readsPerMB.toFixed(0)}, user ${result.readUserMsPerMB.toFixed(2)}), client ${result.clientMsPerMB.toFixed(2)},` +
            ` frames ${result.frames}, write calls per MB ${result.writesPerMB.toFixed(1)} (main thread's writev ${result.mainWritevPerMB.toFixed(1)}, write ${result.mainWritePerMB.toFixed(1)}), wake-ups per MB host ${result.wakes.host.toFixed(0)} client ${result.wakes.client.toFixed(0)}, acks per MB ${result.acksPerMB.toFixed(1)}, skipped ${result.skipped},` +
            ` GCs ${result.gc.scavenges} scavenges / ${result.gc.markCompacts} mark-compacts (${result.gc.majorMs.toFixed(1)} ms), pauses ${result.gc.pauseMsPerMB.toFixed(3)} ms/MB`,
        );
      }
    }
  }
  const loadAfter = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(`load ${loadBefore} before, ${loadAfter} after; ${rounds} rounds; medians`);
  for (const key of ['plain', 'sgr']) {
    for (const setup of setups) {
      const samples = setup.samples[key];
      const names = [...new Set(samples.flatMap((s) => Object.keys(s.threads)))];
      const perThread = names
        .map((name) => [name, median(samples.map((s) => s.threads[name] ?? 0))])
        .map(([name, ms]) => `${name} ${ms.toFixed(2)}`)
        .join(', ');
      console.log(
        `${key.padEnd(5)} ${setup.name.padEnd(16)} ${median(samples.map((s) => s.mbps)).toFixed(1)} MB/s, acks per MB ${median(samples.map((s) => s.acksPerMB)).toFixed(1)},` +
          ` core ${median(samples.map((s) => s.cpuMsPerMB)).toFixed(2)} ms/MB, client ${median(samples.map((s) => s.clientMsPerMB)).toFixed(2)}` +
          ` (${samples.map((s) => s.cpuMsPerMB.toFixed(2)).join(' ')}); by thread: ${perThread};` +
          ` switches per MB (voluntary/not) main ${median(samples.map((s) => s.switches.main)).toFixed(0)}/${median(samples.map((s) => s.switches.mainForced)).toFixed(0)},` +
          ` wake-ups per MB of the host's other threads ${median(samples.map((s) => s.wakes.host)).toFixed(0)}, of the client ${median(samples.map((s) => s.wakes.client)).toFixed(0)},` +
          ` frames per MB ${median(samples.map((s) => s.frames / (s.bytes / 1e6))).toFixed(1)}, write calls per MB ${median(samples.map((s) => s.writesPerMB)).toFixed(1)},` +
          ` #1 ${median(samples.map((s) => s.switches['#1'])).toFixed(0)}/${median(samples.map((s) => s.switches['#1 forced'])).toFixed(0)}, #1 waiting for a CPU ${median(samples.map((s) => s.queuedMsPerMB)).toFixed(2)} ms/MB, its reads per MB ${median(samples.map((s) => s.readsPerMB)).toFixed(0)} and user ms/MB ${median(samples.map((s) => s.readUserMsPerMB)).toFixed(2)};` +
          ` main-thread GCs per delivery: scavenges ${median(samples.map((s) => s.gc.scavenges))}, mark-compacts ${samples.map((s) => s.gc.markCompacts).join(' ')}, pauses ${median(samples.map((s) => s.gc.pauseMsPerMB)).toFixed(3)} ms/MB`,
      );
    }
  }
} finally {
  for (const setup of setups) {
    await setup.client.close();
    await setup.host.stop();
  }
  workspace.dispose();
}
