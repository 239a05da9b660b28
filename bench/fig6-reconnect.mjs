// Figure 6: reconnect. A session holds 10 000 colored lines of output; a
// viewer connects and attaches without a cursor (a reload, a new window), and
// the core hands it the mirrored screen with scrollback. Measured from the
// attach to the resync message in hand, and its size. First resync (the mirror
// parses what it has not yet) and later ones (already parsed) are reported
// apart. A second session with the same output is attached to once it has
// been quiet for QUIET_MS (a reload some time after the output, the common
// case): the core parses a quiet session's output in the background, so that
// first resync should cost what later ones do.
// Baseline: replaying the retained log from cursor 0 to the viewer.
// Like figures 2 and 3, it warms the path up first (one resync of a small
// session), and it waits for the screen worker's own warm-up to end: a core
// started a moment ago is still starting its screen worker (120 to 220 ms, see
// README) and warming its parser and serializer up (about 300 ms of the
// worker's CPU), which a running app did long before. A fresh host's cold
// start is figure 7's.
import { setTimeout as sleep } from 'node:timers/promises';
import { median, now, row, summarize } from './lib/harness.mjs';
import { startCoreHost } from './lib/hosts.mjs';
import { PanelClient } from './lib/panel-client.mjs';

const TARGET_MS = 100;
const KiB = 1024;
/** How long the second session stays quiet before its viewer attaches. */
const QUIET_MS = 2000;

export async function run(ctx) {
  const { workspace, data, sizes } = ctx;
  const host = await startCoreHost(workspace);
  try {
    const file = data.scrollback;
    const warmUp = await host.request('create', { input: { command: 'sh', args: ['-c', 'seq 1 100; exec cat'], cwd: workspace.home } });
    await host.request('waitForEnd', { id: warmUp, target: 1 }, 60_000);
    await resyncOnce(host, warmUp);
    await host.request('screensWarmed', {}, 60_000);
    // The output, then a program that keeps the session open and quiet.
    const id = await host.request('create', {
      input: { command: 'sh', args: ['-c', `cat '${file.path}'; exec cat`], cwd: workspace.home },
    });
    await host.request('waitForEnd', { id, target: file.ptyBytes }, 60_000);

    const firstCpu = await host.request('cpu');
    const first = await resyncOnce(host, id);
    const firstCoreMs = (await host.request('cpu')) - firstCpu;
    const later = [];
    for (let i = 0; i < sizes.reconnects; i++) later.push(await resyncOnce(host, id));
    const replays = [];
    for (let i = 0; i < Math.max(1, Math.min(3, sizes.reconnects)); i++) replays.push(await replayOnce(host, id, file.ptyBytes));

    const laterMs = summarize(later.map((r) => r.ms));
    // The quiet case: the same output in a second session, attached to QUIET_MS after it ended.
    const quietId = await host.request('create', {
      input: { command: 'sh', args: ['-c', `cat '${file.path}'; exec cat`], cwd: workspace.home },
    });
    await host.request('waitForEnd', { id: quietId, target: file.ptyBytes }, 60_000);
    await sleep(QUIET_MS);
    const quietCpu = await host.request('cpu');
    const quiet = await resyncOnce(host, quietId);
    const quietCoreMs = (await host.request('cpu')) - quietCpu;

    const replayMs = median(replays.map((r) => r.ms));
    const replayBytes = replays[0].bytes;
    ctx.log(
      `  first resync ${first.ms.toFixed(1)} ms (${(first.bytes / KiB).toFixed(0)} KiB, core CPU ${firstCoreMs.toFixed(0)} ms), after ${QUIET_MS} ms quiet ${quiet.ms.toFixed(1)} ms, later p50 ${laterMs.p50.toFixed(1)} ms, replay ${replayMs.toFixed(1)} ms`,
    );
    return {
      rows: [
        row({
          figure: '6',
          metric: `resync a viewer, ${file.lines} lines of output, first time (ms)`,
          value: first.ms,
          baseline: replayMs,
          target: `< ${TARGET_MS} ms`,
          pass: first.ms < TARGET_MS,
          note: `attached within milliseconds of the output ending; core CPU during the resync ${firstCoreMs.toFixed(0)} ms`,
        }),
        row({
          figure: '6',
          metric: `  first time, ${QUIET_MS / 1000} s after the output stopped (ms)`,
          value: quiet.ms,
          baseline: replayMs,
          target: `< ${TARGET_MS} ms`,
          pass: quiet.ms < TARGET_MS,
          note: `core CPU during the resync ${quietCoreMs.toFixed(0)} ms`,
        }),
        row({
          figure: '6',
          metric: `  later resyncs p50 / p99 ${laterMs.n} (ms)`,
          value: laterMs.p50,
          baseline: replayMs,
          target: `p99 < ${TARGET_MS} ms`,
          pass: laterMs.p99 < TARGET_MS,
          note: `p99 ${laterMs.p99.toFixed(1)} ms`,
        }),
        row({
          figure: '6',
          metric: `  bytes sent for the resync (KiB)`,
          value: first.bytes / KiB,
          baseline: replayBytes / KiB,
          note: `screen restores ${first.lines} lines`,
        }),
      ],
      details: { lines: file.lines, logBytes: file.ptyBytes, first: { ...first, coreCpuMs: firstCoreMs }, quiet: { ...quiet, quietMs: QUIET_MS, coreCpuMs: quietCoreMs }, later: laterMs, replays },
    };
  } finally {
    await host.stop();
  }
}

/** A new panel connection attaching without a cursor: time to the resync message, and its size on the wire. */
async function resyncOnce(host, id) {
  const client = await PanelClient.connect(host.ready.url, host.ready.panelToken);
  try {
    const resync = client.nextJson((m) => m.type === 'resync' && m.id === id, 30_000, 'resync');
    const started = now();
    client.attach(id, null);
    const { message, size } = await resync;
    const ms = now() - started;
    return { ms, bytes: size, cursor: message.cursor, lines: message.screen.split('\n').length };
  } finally {
    await client.close();
  }
}

/** A new panel connection attaching at cursor 0: time until the whole log has arrived. */
async function replayOnce(host, id, end) {
  const client = await PanelClient.connect(host.ready.url, host.ready.panelToken);
  try {
    const before = client.wireBytes;
    const started = now();
    client.attach(id, 0);
    const stream = client.stream(id);
    await client.until(() => stream.bytes >= end, 30_000, 'replay');
    return { ms: now() - started, bytes: client.wireBytes - before };
  } finally {
    await client.close();
  }
}
