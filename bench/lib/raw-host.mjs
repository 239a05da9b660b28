// Baseline host: raw node-pty with nothing attached, in its own process, so
// its RSS and its event loop compare one to one with core-host.mjs.
import { echoLatency, spawnRaw } from './raw-pty.mjs';
import { send, serveOps } from './host-rpc.mjs';
import { threadSplit, threadTimes } from './thread-cpu.mjs';

const ptys = new Map();
let nextId = 0;

const ops = {
  /** Spawns idle or flooding PTYs; each one's exit is reported with its byte count. */
  spawnMany: ({ spawns }) =>
    spawns.map(({ file, args, env, cwd }) => {
      const id = String(nextId++);
      const raw = spawnRaw(file, args, { env, cwd });
      ptys.set(id, raw);
      raw.exited.then(({ bytes }) => send({ event: 'exited', id, end: bytes }));
      return id;
    }),
  /** Resolves once every listed PTY has printed something (an idle shell, its prompt). */
  waitOutput: async ({ ids }) => {
    await Promise.all(ids.map((id) => ptys.get(id).waitFor((_tail, bytes) => bytes > 0, 30_000)));
    return true;
  },
  /**
   * Starts an echo PTY, then the floods, and runs sequential keystroke round
   * trips on the echo PTY until every flood exited (and at least `minKeys`).
   */
  floodWithEcho: async ({ echo, floods, minKeys, warmupKeys }) => {
    const echoPty = spawnRaw(echo.file, echo.args, { env: echo.env, cwd: echo.cwd });
    await echoPty.waitFor((text) => text.includes('R'));
    for (let i = 0; i < warmupKeys; i++) await echoLatency(echoPty, i);
    const started = performance.now();
    const spawned = floods.map(({ file, args, env, cwd }) => spawnRaw(file, args, { env, cwd }));
    let running = spawned.length;
    const allExited = Promise.all(spawned.map((p) => p.exited.then(() => running--)));
    const samples = [];
    while (samples.length < minKeys || running > 0) samples.push(await echoLatency(echoPty, samples.length));
    await allExited;
    const seconds = (performance.now() - started) / 1000;
    await echoPty.kill();
    return { samples, seconds, bytes: spawned.map((p) => p.bytes) };
  },
  /**
   * Figure 2's baseline: one flood read to its end by node-pty's onData on this process's main thread,
   * with this process's CPU per MB and the main thread's voluntary switches per MB (its waits in read(2)
   * and epoll) and forced ones (preempted, mostly by the terminal's flush worker its read woke), and its
   * time runnable but waiting for a CPU per MB. Read here rather than in the bench process, whose state after a run of the other figures
   * made the reader dearer (bench/README.md, "Figure 2's first run").
   */
  flood: async ({ file, args, env, cwd }) => {
    const cpuBefore = process.cpuUsage();
    const threadsBefore = threadTimes();
    const raw = spawnRaw(file, args, { env, cwd });
    // Listed while it runs, so that killAll, stop and a lost bench end it too.
    const id = String(nextId++);
    ptys.set(id, raw);
    const { bytes } = await raw.exited;
    ptys.delete(id);
    const cpu = process.cpuUsage(cpuBefore);
    const { main } = threadSplit(process.pid, threadsBefore, threadTimes());
    const mb = bytes / 1e6;
    return { bytes, cpuMsPerMB: (cpu.user + cpu.system) / 1000 / mb, readWaits: main.voluntary / mb, readForced: main.forced / mb, readQueuedMs: main.queuedMs / mb, readCalls: main.reads / mb, readUserMs: main.userMs / mb };
  },
  /**
   * Figure 3's baseline: an echo program on raw node-pty in this process, ready once it printed R; then
   * one keystroke round trip per echoKey, timed here (write to the byte's arrival), so the IPC that
   * asks for it is not in it. Typed here rather than in the bench process, whose state after the other
   * figures made node-pty's reader dearer (bench/README.md, "Figure 1 and 3's baselines").
   */
  echoStart: async ({ file, args, env, cwd }) => {
    const id = String(nextId++);
    const raw = spawnRaw(file, args, { env, cwd });
    ptys.set(id, raw);
    await raw.waitFor((text) => text.includes('R'));
    return id;
  },
  echoKey: ({ id, i }) => echoLatency(ptys.get(id), i),
  memory: ({ gc }) => {
    if (gc && global.gc) global.gc();
    return process.memoryUsage();
  },
  killAll: async () => {
    await Promise.all([...ptys.values()].map((p) => p.kill()));
    ptys.clear();
    return true;
  },
  stop: async () => {
    await ops.killAll();
    setImmediate(() => process.exit(0));
    return true;
  },
};

serveOps(ops);
process.on('disconnect', () => {
  for (const p of ptys.values()) p.pty.kill('SIGKILL');
  process.exit(0);
});
send({ event: 'ready', pid: process.pid });
