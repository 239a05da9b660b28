// Figure 1: ingest throughput. A flood (`cat` of a big file) read through the
// core's PTY service into the session's output log, against raw node-pty
// onData with nothing attached, the physical limit of reading a PTY from Node.
// Both run in this process, alternately, so they see the same machine load.
import { createPtyService } from '@ptydeck/core';
import { cpuClock, deferred, median, MiB, now, row, stealPercent, withDeadline } from './lib/harness.mjs';
import { headOf } from './lib/data.mjs';
import { spawnRaw } from './lib/raw-pty.mjs';

const TARGET = 0.9;
/** How much of each file each path reads before the measured repetitions. */
const WARM_UP_BYTES = 16 * MiB;

export async function run(ctx) {
  const { workspace, data, reps } = ctx;
  const service = createPtyService({ env: workspace.env });
  const rows = [];
  const details = {};
  try {
    // Warm-up, alternated, on the first WARM_UP_BYTES of each file: the first spawn of each kind pays for
    // loading and JIT, not for reading, and a 1 MiB one left the core's path to be compiled during the
    // first measured repetitions (the raw reader's few lines were warm after it).
    for (const key of ['plain', 'sgr']) {
      const head = headOf(data[key], WARM_UP_BYTES);
      await rawIngest(head, workspace);
      await coreIngest(service, head, workspace);
    }
    for (const [key, label] of [
      ['plain', 'cat plain text'],
      ['sgr', 'cat SGR-colored'],
    ]) {
      const file = data[key];
      const runs = [];
      for (let i = 0; i < reps; i++) {
        // Alternate which goes first, so neither always runs on a warmer cache.
        const order = i % 2 === 0 ? ['raw', 'core'] : ['core', 'raw'];
        const result = {};
        for (const which of order) {
          const clock = cpuClock();
          result[which] = which === 'raw' ? await rawIngest(file, workspace) : await coreIngest(service, file, workspace);
          result[which].steal = stealPercent(clock, cpuClock());
        }
        runs.push({ raw: result.raw, core: result.core, ratio: result.core.mbps / result.raw.mbps });
        ctx.log(
          `  ${label} rep ${i + 1}: raw ${result.raw.mbps.toFixed(1)} MB/s, core ${result.core.mbps.toFixed(1)} MB/s;` +
            ` CPU ms/MB raw ${result.raw.cpuMsPerMB.toFixed(1)}, core ${result.core.cpuMsPerMB.toFixed(1)};` +
            ` host steal ${result.raw.steal?.toFixed(0) ?? '?'} / ${result.core.steal?.toFixed(0) ?? '?'}%`,
        );
      }
      const ratio = median(runs.map((r) => r.ratio));
      details[key] = { fileBytes: file.bytes, ptyBytes: file.ptyBytes, runs };
      rows.push(
        row({
          figure: '1',
          metric: `ingest, ${label} ${Math.round(file.bytes / MiB)} MiB (MB/s)`,
          value: median(runs.map((r) => r.core.mbps)),
          baseline: median(runs.map((r) => r.raw.mbps)),
          ratio,
          target: `>= ${TARGET}x raw`,
          pass: ratio >= TARGET,
        }),
        row({
          figure: '1',
          metric: '  CPU per MB ingested (ms)',
          value: median(runs.map((r) => r.core.cpuMsPerMB)),
          baseline: median(runs.map((r) => r.raw.cpuMsPerMB)),
          note: 'less load-sensitive than MB/s',
        }),
        row({
          figure: '1',
          metric: '  host steal time during the floods (% of CPU time)',
          value: median(runs.map((r) => r.core.steal)),
          baseline: median(runs.map((r) => r.raw.steal)),
          note: 'the VM host running other guests: a measure of noise',
        }),
      );
      const lost = runs.filter((r) => r.core.bytes !== file.ptyBytes);
      if (lost.length > 0) {
        rows.push(row({ figure: '1', metric: `ingest ${label}: runs with bytes missing in the log`, value: lost.length, target: '0', pass: false }));
      }
    }
  } finally {
    await service.dispose();
  }
  return { rows, details };
}

/** MB/s from spawn to exit through the core; every byte must be in the log (its end cursor). */
async function coreIngest(service, file, workspace) {
  const exited = deferred();
  let id;
  const off = service.on('pty.exited', (event) => {
    if (event.id === id) exited.resolve();
  });
  const cpuBefore = process.cpuUsage();
  const started = now();
  try {
    id = service.create({ command: file.command ?? 'cat', args: file.args ?? [file.path], cwd: workspace.home, source: 'user' }).id;
    await withDeadline(exited.promise, 300_000, 'core ingest');
  } finally {
    off();
  }
  const seconds = (now() - started) / 1000;
  const cpu = cpuMs(cpuBefore);
  const bytes = service.read(id, { maxBytes: 1 }).end;
  await service.remove(id);
  return { bytes, seconds, mbps: bytes / 1e6 / seconds, cpuMsPerMB: cpu / (bytes / 1e6) };
}

/** MB/s from spawn to exit on raw node-pty (which may drop the last few KB at exit; irrelevant at this size). */
async function rawIngest(file, workspace) {
  const cpuBefore = process.cpuUsage();
  const started = now();
  const raw = spawnRaw(file.command ?? 'cat', file.args ?? [file.path], { env: workspace.env, cwd: workspace.home });
  const { bytes } = await withDeadline(raw.exited, 300_000, 'raw ingest');
  const seconds = (now() - started) / 1000;
  return { bytes, seconds, mbps: bytes / 1e6 / seconds, cpuMsPerMB: cpuMs(cpuBefore) / (bytes / 1e6) };
}

/** CPU time of this process since `before` (user + system), in ms: less sensitive to machine load than wall time. */
function cpuMs(before) {
  const { user, system } = process.cpuUsage(before);
  return (user + system) / 1000;
}
