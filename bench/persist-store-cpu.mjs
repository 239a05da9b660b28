// The session store's CPU (process.cpuUsage: every thread, user and system) per MiB it persists,
// without a host: N sessions' logs (the service's OutputLog behind a stand-in service) each gain STEP
// bytes per turn in 4 KiB chunks for TURNS turns, every turn written by flush(). Counted, so steadier
// under load than figure 10's wall times. Usage: [N=100 TURNS=8 STEP=131072] node bench/persist-store-cpu.mjs
// [<checkout>/packages/core/dist] (a built checkout's dist, e.g. a worktree at the commit before a change). TICK=1: the
// timer's turns (a flood's) instead of flush()'s.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { threadTimes } from './lib/thread-cpu.mjs';
const dist = resolve(process.argv[2] ?? join(fileURLToPath(new URL('.', import.meta.url)), '../packages/core/dist'));
const { openSessionStore } = await import(join(dist, 'persist/session-store.js'));
const { OutputLog } = await import(join(dist, 'pty/output-log.js'));
const N = +(process.env.N ?? 100), TURNS = +(process.env.TURNS ?? 8), STEP = +(process.env.STEP ?? 128 * 1024), CHUNK = 4096;
const logs = new Map(), infos = new Map(), listeners = new Map();
const service = {
  list: () => [...infos.values()],
  get: (id) => infos.get(id),
  on: (ev, fn) => { listeners.set(ev, fn); return () => listeners.delete(ev); },
  read(id, o = {}) {
    const log = logs.get(id); if (!log) { const e = new Error('gone'); e.code = 'no_such_session'; throw e; }
    const s = log.readFrom(o.cursor, o.maxBytes, o.into);
    return { ...s, end: log.end, status: 'running' };
  },
};
const chunk = Buffer.alloc(CHUNK, 'x');
for (let i = 0; i < N; i++) { const id = 's' + i; logs.set(id, new OutputLog()); infos.set(id, { id, status: 'running', createdAt: Date.now(), cols: 80, rows: 24 }); }
const dir = mkdtempSync(join(tmpdir(), 'persist-h-'));
// TICK=1: each turn is the timer's (a flood's), not flush()'s, which writes everything: the store's private tick() and
// queue, called from here (bytesPerSecond so high that its budget takes every session each turn).
const TICK = process.env.TICK === '1';
const store = openSessionStore({ dir: join(dir, 'sessions'), diskThread: process.env.DISK_THREAD !== '0', flushMs: 3_600_000, ...(TICK ? { bytesPerSecond: 1e12 } : {}), onError: (e, w) => { console.error(w, e); process.exit(1); } });
const turn = () => (TICK ? (store.tick(), store.queue) : store.flush());
let rev = 0;
// A flood's timeline: its chunk times move every turn, its records do not. A build from before timesRevisionOf had one
// revision for both.
const splitRevisions = readFileSync(join(dist, 'persist/session-writer.js'), 'utf8').includes('timesRevisionOf');
const timeline = { revisionOf: () => (splitRevisions ? 0 : rev), timesRevisionOf: () => rev, persisted: () => ({ version: 1, commands: [], times: [rev, 1, 2, 3] }), closedRevision: () => 0, persistedClosed: () => ({ version: 1, sessions: [] }) };
store.record(service, { agentCursorOf: () => null, timeline });
await store.flush();
let cpu = 0, main = 0, switches = 0, bytes = 0;
const mainThread = () => threadTimes()[process.pid] ?? { cpuMs: 0, voluntary: 0, forced: 0 };
for (let t = 0; t < TURNS; t++) {
  for (const log of logs.values()) for (let b = 0; b < STEP; b += CHUNK) log.append(chunk);
  bytes += N * STEP; rev++;
  const before = process.cpuUsage(), mainBefore = mainThread(); await turn(); const d = process.cpuUsage(before), mainAfter = mainThread(); cpu += d.user + d.system; main += mainAfter.cpuMs - mainBefore.cpuMs; switches += mainAfter.voluntary + mainAfter.forced - mainBefore.voluntary - mainBefore.forced;
}
store.dispose(); rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify({ msPerMiB: +(cpu / 1000 / (bytes / 1048576)).toFixed(3), mainMsPerMiB: +(main / (bytes / 1048576)).toFixed(3), mainSwitchesPerMiB: +(switches / (bytes / 1048576)).toFixed(1), cpuMs: +(cpu / 1000).toFixed(1), MiB: bytes / 1048576 }));
