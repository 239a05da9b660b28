// The ptydeck core in its own process, driven by the bench over IPC.
//
// The core runs apart from the bench's clients because that is how it runs
// for real (Electron's main process or `ptydeck serve`, with the panel in a
// renderer and agents in their own processes), so clients and server do not
// share an event loop, and so its RSS can be read on its own.
//
// --mirror=off serves the panel WebSocket with the same PanelConnection but
// without the server-side screen mirrors (resync then sends an empty screen):
// the difference to --mirror=on is what the mirror costs. --screens=main
// parses the screens on the core's main thread (a ScreenService given
// createScreen, lazily, as before the screen worker) instead of in the
// worker: the before of a before/after measured in the same run.
// --persist=on records every session into a session store (issue 24) in the
// state directory, as a host does unless PTYDECK_PERSIST=0: figure 10 runs
// the same flood with it on and off.
import { readdirSync, statSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { WebSocketServer } from 'ws';
import { PANEL_WS_PATH } from '@ptydeck/contract';
import { createPtyService, ScreenMirror, ScreenService, startLocalServer } from '@ptydeck/core';
import { AgentRegistry } from '../../packages/core/dist/server/agent-registry.js';
import { PanelConnection } from '../../packages/core/dist/server/panel-connection.js';
import { spawnTurnsOf } from '../../packages/core/dist/pty/spawn-turns.js';
import { SCREEN_WORKER_OPTIONS } from '../../packages/core/dist/screen/screen-worker-host.js';
import { openSessionStore, sessionStoreDir } from '../../packages/core/dist/persist/session-store.js';
import { send, serveOps } from './host-rpc.mjs';
import { watchMemory } from './memory-probe.mjs';

const { values } = parseArgs({
  options: {
    mirror: { type: 'string', default: 'on' },
    screens: { type: 'string', default: 'worker' },
    'max-sessions': { type: 'string', default: '32' },
    'state-dir': { type: 'string' },
    persist: { type: 'string', default: 'off' },
  },
});

const service = createPtyService({ maxLiveSessions: Number(values['max-sessions']), maxExitedSessions: 256 });
// A directory of its own per host: a host started after this one in the same run starts empty.
const storeDir = `${sessionStoreDir(values['state-dir'] ?? '.')}-${process.pid}`;
const store = values.persist === 'on' ? openSessionStore({ dir: storeDir }) : undefined;
const stopRecording = store?.record(service);
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
const screens =
  values.mirror === 'off'
    ? undefined
    : new ScreenService(service, values.screens === 'main' ? { createScreen: (options) => new ScreenMirror(options) } : { worker: { spawn: probedWorker } });
const server = values.mirror === 'off' ? await startWithoutMirror(service) : await startLocalServer({
  service,
  screens,
  stateDir: values['state-dir'],
  writeDiscovery: false,
  appDir: '/nonexistent',
});

// Session exits, with the final log end so the bench can account for every byte.
service.on('pty.exited', (event) => {
  const end = service.read(event.id, { maxBytes: 1 }).end;
  send({ event: 'exited', id: event.id, end, exitCode: event.exitCode });
});

const LOOP_RESOLUTION_MS = 1;
let loopDelay;
let stopMemoryWatch;
let probeTimer;

/**
 * Bytes the sessions' logs retain (through the service's API), and what the
 * buffers holding them occupy (a look inside the service, for diagnosis only:
 * undefined once its fields are named otherwise).
 */
function logBytes() {
  let bytes = 0;
  for (const info of service.list()) {
    try {
      const { cursor, end } = service.read(info.id, { maxBytes: 1 });
      bytes += end - cursor;
    } catch {
      // removed meanwhile
    }
  }
  return { retained: bytes, buffers: logBuffers() };
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

const ops = {
  create: ({ input }) => service.create({ source: 'user', ...input }).id,
  /** Every creation in the turn the request arrived in: how the core served a burst before spawns took turns. */
  createMany: ({ inputs }) => inputs.map((input) => service.create({ source: 'user', ...input }).id),
  /** As the product serves a burst of requests (terminal_create, a panel's create, terminal/create): through the spawn queue. */
  createTaking: ({ inputs }) => Promise.all(inputs.map((input) => spawnTurnsOf(service).run(() => service.create({ source: 'user', ...input }).id))),
  end: ({ id }) => service.read(id, { maxBytes: 1 }).end,
  /** How far the session's screen has parsed its log: where a slow resync's time went. */
  parsedThrough: ({ id }) => screens?.parsedThrough(id) ?? null,
  /** The agent tool's screen read (terminal_read mode "screen" reads ScreenService.text): ms until it resolves. */
  screenRead: async ({ id }) => {
    const started = performance.now();
    await screens.text(id);
    return performance.now() - started;
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
  /** Starts recording this process's event-loop delay (figure 8): one window at a time. */
  loopDelayStart: () => {
    loopDelay?.disable();
    loopDelay = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
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
    probeTimer = setInterval(() => screenWorker?.postMessage({ type: 'memory-probe' }), 50);
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
    await store?.flush();
    return performance.now() - started;
  },
  /** Bytes the session store has on disk (output and metadata): what persistence wrote and kept. */
  storedBytes: () => (store ? readdirSync(storeDir).reduce((sum, name) => sum + statSync(path.join(storeDir, name)).size, 0) : 0),
  stop: async () => {
    stopRecording?.();
    await server.close();
    screens?.dispose();
    await service.dispose();
    setImmediate(() => process.exit(0));
    return true;
  },
};

serveOps(ops);
// The bench went away: do not outlive it.
process.on('disconnect', () => {
  void service.dispose().finally(() => process.exit(0));
});

send({ event: 'ready', url: server.url, agentToken: server.agentToken, panelToken: server.panelToken, pid: process.pid });

async function startWithoutMirror(service) {
  const agents = new AgentRegistry();
  const mirrors = {
    // No screen to restore: the viewer continues from the end of the log.
    snapshot: async (id) => ({ screen: '', cursor: service.read(id, { maxBytes: 1 }).end }),
  };
  const httpServer = http.createServer((_req, res) => res.writeHead(404).end());
  const wss = new WebSocketServer({
    server: httpServer,
    path: PANEL_WS_PATH,
    perMessageDeflate: false,
    skipUTF8Validation: true,
    maxPayload: 8 * 1024 * 1024,
    handleProtocols: (protocols) => [...protocols][0] ?? false,
  });
  const panels = new Set();
  wss.on('connection', (ws) => {
    const panel = new PanelConnection(ws, { service, agents, screens: mirrors, instance: 'bench' });
    panels.add(panel);
    ws.on('close', () => panels.delete(panel));
  });
  await new Promise((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const { port } = httpServer.address();
  return {
    url: `http://127.0.0.1:${port}`,
    token: 'unused',
    close: async () => {
      for (const client of wss.clients) client.terminate();
      for (const panel of panels) panel.dispose();
      wss.close();
      await new Promise((resolve) => httpServer.close(resolve));
    },
  };
}
