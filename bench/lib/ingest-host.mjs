// Figure 1's process: both of its readers, the core's PtyService and raw
// node-pty, in one fresh process started for the figure, so every run of a
// --repeat run compares them as its first run did. Read in the bench process
// after the other figures had run there (figure 13 most), the raw reader cost
// about a fifth more per MB and the core's reader less than that
// (bench/README.md, "Figure 1 and 3's baselines").
import { createPtyService } from '@ptydeck/core';
import { deferred, withDeadline } from './harness.mjs';
import { spawnRaw } from './raw-pty.mjs';
import { send, serveOps } from './host-rpc.mjs';

const INGEST_MS = 300_000;
let service;
/** The raw flood being read, so that a lost bench ends it too. */
let rawPty;

const ops = {
  /** Makes the core's PtyService, with the bench workspace's environment for its sessions. */
  init: ({ env }) => {
    service = createPtyService({ env });
    return true;
  },
  /**
   * One flood read to its end by `which` ('core': spawn to pty.exited, then the log's end cursor;
   * 'raw': node-pty spawn to exit, which may drop the last few KB, irrelevant at this size):
   * its bytes, wall seconds and this process's CPU in ms.
   */
  ingest: async ({ which, file, args, cwd, env }) => {
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const bytes = which === 'core' ? await coreIngest(file, args, cwd) : await rawIngest(file, args, cwd, env);
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    return { bytes, seconds, cpuMs: (cpu.user + cpu.system) / 1000 };
  },
  stop: async () => {
    await service?.dispose();
    setImmediate(() => process.exit(0));
    return true;
  },
};

async function rawIngest(file, args, cwd, env) {
  rawPty = spawnRaw(file, args, { env, cwd });
  try {
    return (await withDeadline(rawPty.exited, INGEST_MS, 'raw ingest')).bytes;
  } finally {
    rawPty = undefined;
  }
}

async function coreIngest(command, args, cwd) {
  const exited = deferred();
  let id;
  const off = service.on('pty.exited', (event) => {
    if (event.id === id) exited.resolve();
  });
  try {
    id = service.create({ command, args, cwd, source: 'user' }).id;
    await withDeadline(exited.promise, INGEST_MS, 'core ingest');
  } finally {
    off();
  }
  const bytes = service.read(id, { maxBytes: 1 }).end;
  await service.remove(id);
  return bytes;
}

serveOps(ops);
process.on('disconnect', () => {
  rawPty?.pty.kill('SIGKILL');
  void Promise.resolve(service?.dispose()).finally(() => process.exit(0));
});
send({ event: 'ready', pid: process.pid });
