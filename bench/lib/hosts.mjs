// Starts core-host.mjs or raw-host.mjs as a child and talks to it over IPC.
import { fork } from 'node:child_process';
import path from 'node:path';
import { HOST_NODE_FLAGS, withHostAllocator } from '../../packages/core/dist/common/host-node-flags.js';
import { BENCH_DIR, deferred, killChild, onCleanup, processMemory, withDeadline } from './harness.mjs';

const HOST_START_MS = 30_000;
const REQUEST_MS = 120_000;

class Host {
  constructor(child, ready) {
    this.child = child;
    this.ready = ready;
    this.pid = child.pid;
    this.nextReq = 0;
    this.pending = new Map();
    this.exitListeners = new Set();
    child.on('message', (message) => {
      if (message.event === 'exited') {
        for (const listener of this.exitListeners) listener(message);
        return;
      }
      if (message.req === undefined) return;
      const waiter = this.pending.get(message.req);
      if (!waiter) return;
      this.pending.delete(message.req);
      if (message.ok) waiter.resolve(message.value);
      else waiter.reject(new Error(message.error));
    });
    child.on('exit', (code, signal) => {
      for (const waiter of this.pending.values()) waiter.reject(new Error(`host exited (${signal ?? code})`));
      this.pending.clear();
    });
    this.unregister = onCleanup(() => killChild(child, 'SIGKILL'));
  }

  request(op, args = {}, ms = REQUEST_MS) {
    // A host already gone (killed by the cleanup of a figure that overran its deadline, whose code then
    // stops it in a finally): without this, and the callback below, send emitted an 'error' on the child
    // that nothing handled, and the whole bench process died of it.
    if (!this.child.connected) return Promise.reject(new Error(`host request ${op}: the host is gone`));
    const req = this.nextReq++;
    const waiter = deferred();
    this.pending.set(req, waiter);
    this.child.send({ req, op, ...args }, (error) => {
      if (!error) return;
      this.pending.delete(req);
      waiter.reject(error);
    });
    return withDeadline(waiter.promise, ms, `host request ${op}`);
  }

  /** Calls `listener({id, end, exitCode})` for every session exit; returns the unsubscribe. */
  onExited(listener) {
    this.exitListeners.add(listener);
    return () => this.exitListeners.delete(listener);
  }

  /**
   * The exit of the session `idOf()` will name (it may be created after this is
   * called, so an exit that races the create's answer is not missed): resolves
   * with its log's end cursor.
   */
  exitOf(idOf) {
    return new Promise((resolve) => {
      const off = this.onExited((event) => {
        if (event.id !== idOf()) return;
        off();
        resolve(event.end);
      });
    });
  }

  memory() {
    return processMemory(this.pid);
  }

  async stop() {
    try {
      await this.request('stop', {}, 15_000);
      await withDeadline(new Promise((resolve) => (this.child.exitCode !== null ? resolve() : this.child.once('exit', resolve))), 10_000, 'host exit');
    } catch {
      await killChild(this.child, 'SIGKILL');
    }
    this.unregister();
  }
}

async function startHost(script, args, workspace, nodeFlags = [], hostEnv = (env) => env) {
  const child = fork(path.join(BENCH_DIR, 'lib', script), args, {
    // BENCH_HOST_ENV="NAME=value ..." adds to the hosts' environment (say MALLOC_ARENA_MAX=2).
    env: hostEnv({ ...workspace.env, ...Object.fromEntries((process.env.BENCH_HOST_ENV ?? '').split(' ').filter(Boolean).map((pair) => pair.split('='))) }),
    cwd: workspace.home,
    // BENCH_CPU_PROF=<dir> profiles the hosts (node --cpu-prof), to find where a missed target goes;
    // BENCH_HOST_FLAGS passes more node flags to them (say --trace-gc).
    execArgv: ['--expose-gc', ...nodeFlags, ...(process.env.BENCH_HOST_FLAGS ? process.env.BENCH_HOST_FLAGS.split(' ') : []), ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [])],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = deferred();
  const onMessage = (message) => {
    if (message.event === 'ready') ready.resolve(message);
  };
  child.on('message', onMessage);
  child.once('exit', (code, signal) => ready.reject(new Error(`${script} exited before ready (${signal ?? code})`)));
  const host = new Host(child, undefined);
  try {
    host.ready = await withDeadline(ready.promise, HOST_START_MS, `${script} start`);
  } catch (error) {
    await killChild(child, 'SIGKILL');
    host.unregister();
    throw error;
  }
  child.off('message', onMessage);
  return host;
}

/**
 * The ptydeck host (startHost) in a child process. screens: 'worker' (as
 * shipped) or 'main' (parsed on the host's main thread, as before the screen
 * worker); persist: 'off', or 'on' to record every session into a session
 * store (figure 10).
 */
export function startCoreHost(workspace, { screens = 'worker', maxSessions = 32, persist = 'off' } = {}) {
  return startHost(
    'core-host.mjs',
    [`--screens=${screens}`, `--max-sessions=${maxSessions}`, `--state-dir=${workspace.state}`, `--persist=${persist}`],
    workspace,
    // The node flags a client starts the host with (BENCH_HOST_FLAGS comes after them, so it can override one),
    // and its allocator settings (BENCH_HOST_ENV can set one otherwise).
    HOST_NODE_FLAGS,
    withHostAllocator,
  );
}

/** Raw node-pty in a child process, the baseline for memory and scale. */
export function startRawHost(workspace) {
  return startHost('raw-host.mjs', [], workspace);
}

/** Figure 3's panel client, typing into a core host's session and timing each key, in a child process of its own. */
export function startPanelHost(workspace) {
  return startHost('panel-host.mjs', [], workspace);
}

/** Figure 4's agent: the MCP SDK client calling terminal_run and timing each call, in a child process of its own. */
export function startAgentHost(workspace) {
  return startHost('agent-host.mjs', [], workspace);
}

/** Figure 1's readers, the core's PtyService and raw node-pty, in a child process of their own. */
export function startIngestHost(workspace) {
  return startHost('ingest-host.mjs', [], workspace);
}

/** Figure 13's ingest with the timeline `on` or `off`, in a child process of its own (one per ingest). */
export function startTimelineIngestHost(workspace, on) {
  return startHost('timeline-ingest-host.mjs', [`--timeline=${on ? 'on' : 'off'}`], workspace);
}
