// `node bench/echo-trace.mjs [floods] [off|on]`: where a typed key's time goes
// during figure 10's flood (100 sessions each printing 1 MiB to one panel,
// keys typed into a 101st). Every key is stamped in the client (sent, echo
// received) and in the host (input reached PtyService.write, echo's
// pty.data), so the slowest split into client to host, PTY and back into the
// host, and host to client. Per flood: the host's CPU time, its main
// thread's, and V8's GCs (counts and pauses), which move far less with the
// machine's load than the keys do. With BENCH_CPU_PROF=<dir>, each slow key
// is also matched to what the host's main thread did meanwhile in its
// profile (idle there means waiting for a CPU, or nothing to do).
import { readFileSync } from 'node:fs';
import { createWorkspace, MiB, now, runCleanups, summarize } from './lib/harness.mjs';
import { makeDataFiles } from './lib/data.mjs';
import { matchProfile, newestProfile } from './lib/profile-match.mjs';
import { startCoreHost } from './lib/hosts.mjs';
import { PanelClient } from './lib/panel-client.mjs';
import { keyFor } from './lib/raw-pty.mjs';
import { WARMUP_KEYS } from './fig5-scale.mjs';

const FLOOD_SESSIONS = 100;
const MIN_KEYS = 100;
/** The slowest this share of keys is split and, with a profile, matched to it. */
const SLOWEST = 0.02;

const floods = Number(process.argv[2] ?? 1);
const persist = process.argv[3] ?? 'off';
const wall = () => performance.timeOrigin + performance.now();
const workspace = createWorkspace();
try {
  const data = makeDataFiles(workspace.data, { plainBytes: 1024, sgrBytes: 1024, scaleBytes: MiB, agentLogBytes: 1024, scrollbackLines: 10 });
  for (let i = 0; i < floods; i++) await flood(data);
} finally {
  await runCleanups();
  workspace.dispose();
}

async function flood(data) {
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  const host = await startCoreHost(workspace, { maxSessions: FLOOD_SESSIONS + 8, persist });
  let trace;
  let keys;
  let seconds;
  try {
    const client = await PanelClient.connect(host.ready.url, host.ready.panelToken);
    const echoId = await client.startEcho(host, workspace.home, WARMUP_KEYS);
    const echo = client.stream(echoId);
    await host.request('echoTraceStart', { id: echoId });
    const ends = new Map();
    const offExit = host.onExited((event) => ends.set(event.id, event.end));
    keys = [];
    let spawnedAt = Infinity;
    let done = false;
    const typing = (async () => {
      for (let i = WARMUP_KEYS; keys.length < MIN_KEYS || !done; i++) {
        const target = echo.next + 1;
        const sent = wall();
        client.send({ type: 'input', id: echoId, data: keyFor(i) });
        await client.until(() => echo.next >= target, 10_000, 'keystroke echo');
        keys.push({ sent, got: wall() });
      }
    })();
    const started = now();
    const ids = await host.request('createTaking', {
      inputs: Array.from({ length: FLOOD_SESSIONS }, () => ({ command: 'cat', args: [data.scale.path], cwd: workspace.home })),
    });
    spawnedAt = wall();
    for (const id of ids) client.attach(id, 0);
    const accounted = (id) => ends.has(id) && client.stream(id).bytes + client.stream(id).skipped >= ends.get(id);
    await client.until(() => ids.every(accounted), 600_000, 'every flood byte accounted for');
    seconds = (now() - started) / 1000;
    done = true;
    await typing;
    offExit();
    trace = await host.request('echoTraceStop');
    // Keys typed while the sessions were created are figure 9's, and figures 5 and 10 leave them out.
    keys = keys.map((key, i) => split(key, trace, i)).filter((key) => key.sent >= spawnedAt);
    await client.close();
  } finally {
    await host.stop();
  }
  const all = summarize(keys.map((key) => key.total));
  const gc = (kind) => `${kind.n} (${kind.ms.toFixed(0)} ms, max ${kind.max.toFixed(0)})`;
  console.log(
    `persistence ${persist}, load ${load}: ${FLOOD_SESSIONS} floods in ${seconds.toFixed(1)} s; host CPU ${(trace.cpuMs / 1000).toFixed(2)} s, main thread ${(trace.mainThreadCpuMs / 1000).toFixed(2)} s; mark-compacts ${gc(trace.gc.major)}, scavenges ${gc(trace.gc.minor)}`,
  );
  console.log(`  ${all.n} keys: p50 ${all.p50.toFixed(1)}, p99 ${all.p99.toFixed(1)}, max ${all.max.toFixed(1)} ms`);
  const slowest = [...keys].sort((a, b) => b.total - a.total).slice(0, Math.max(1, Math.ceil(keys.length * SLOWEST)));
  const mean = (part) => (slowest.reduce((sum, key) => sum + key[part], 0) / slowest.length).toFixed(1);
  console.log(`  slowest ${slowest.length}, mean ms: client to host ${mean('toHost')}, PTY and back into the host ${mean('pty')}, host to client ${mean('back')}`);
  if (process.env.BENCH_CPU_PROF) matchProfile(slowest, trace.wallMinusMonotonic, newestProfile(process.env.BENCH_CPU_PROF));
}

/** Key i's parts: the host stamps its inputs in order, and its echo is the first output after its input. */
function split(key, trace, i) {
  const tin = trace.inputs[i];
  const tout = trace.outputs.find((t) => t >= tin);
  return { ...key, total: key.got - key.sent, toHost: tin - key.sent, pty: tout - tin, back: key.got - tout };
}

