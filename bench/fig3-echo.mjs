// Figure 3: keystroke echo latency. A key sent as panel input over the
// WebSocket, through the core to the PTY, echoed by the program and back to
// the client as an output frame; against the same round trip on raw node-pty.
// Each side is typed and timed in a fresh process of its own started for the
// figure, as the core's host is: the panel client in panel-host.mjs, the raw
// PTY in raw-host.mjs; the bench process only asks for each key. The program
// echoes each byte itself (raw mode, `cat`), as a shell or an editor does.
// Keystrokes alternate between the two paths so both see the same load.
import { now, row, summarize } from './lib/harness.mjs';
import { startCoreHost, startPanelHost, startRawHost } from './lib/hosts.mjs';
import { ECHO_PROGRAM } from './lib/raw-pty.mjs';

const RATIO_TARGET = 2;
const P99_TARGET_MS = 5;
const WARMUP_KEYS = 50;

export async function run(ctx) {
  const { workspace, sizes } = ctx;
  const host = await startCoreHost(workspace);
  // The screen worker warms its parser when the host starts (parser-warm-up.ts: 2.3 s at load 10, more under
  // more load): the keys wait for it to end, as a host past its start has (bench/README.md, "Figure 3's eager posts").
  const warmed = host.request('screensWarmed', {}, 60_000);
  warmed.catch(() => {}); // awaited below; a failure before that is the figure's, not an unhandled rejection
  let rawHost;
  let panel;
  try {
    rawHost = await startRawHost(workspace);
    panel = await startPanelHost(workspace);
    await panel.request('connect', { url: host.ready.url, token: host.ready.panelToken });
    const [file, args] = ECHO_PROGRAM;
    const id = await host.request('create', { input: { command: file, args, cwd: workspace.home } });
    await panel.request('echoAttach', { id });
    const coreEcho = (i) => panel.request('echoKey', { id, i });
    const rawId = await rawHost.request('echoStart', { file, args, env: workspace.env, cwd: workspace.home });
    const rawEcho = (i) => rawHost.request('echoKey', { id: rawId, i });

    const waitFrom = now();
    await warmed;
    const warmUpWaitMs = now() - waitFrom;
    for (let i = 0; i < WARMUP_KEYS; i++) {
      await rawEcho(i);
      await coreEcho(i);
    }
    // Both clients' processes start the keys with no collection owed by their start-up (the core's own is its cost).
    await panel.request('collect');
    await rawHost.request('memory', { gc: true });
    const core = [];
    const baseline = [];
    const started = now();
    for (let i = 0; i < sizes.keystrokes; i++) {
      if (i % 2 === 0) {
        baseline.push(await rawEcho(i));
        core.push(await coreEcho(i));
      } else {
        core.push(await coreEcho(i));
        baseline.push(await rawEcho(i));
      }
    }
    const clientGcs = await panel.request('gcs');
    ctx.log(
      `  ${sizes.keystrokes} keystrokes each in ${((now() - started) / 1000).toFixed(1)} s, after ${warmUpWaitMs.toFixed(0)} ms waiting for the screen worker's warm-up; the panel client's GCs meanwhile ${clientGcs.n} (${clientGcs.majors} mark-compacts, ${clientGcs.ms.toFixed(1)} ms, max ${clientGcs.max.toFixed(1)})`,
    );
    const c = summarize(core);
    const b = summarize(baseline);
    const p99Pass = c.p99 <= RATIO_TARGET * b.p99 && c.p99 < P99_TARGET_MS;
    return {
      rows: [
        row({ figure: '3', metric: `keystroke echo p50, ${c.n} keys (ms)`, value: c.p50, baseline: b.p50 }),
        row({
          figure: '3',
          metric: `keystroke echo p99, ${c.n} keys (ms)`,
          value: c.p99,
          baseline: b.p99,
          target: `<= ${RATIO_TARGET}x raw, < ${P99_TARGET_MS} ms`,
          pass: p99Pass,
        }),
      ],
      details: { core: c, raw: b, clientGcs, warmUpWaitMs },
    };
  } finally {
    await panel?.stop();
    await rawHost?.stop();
    await host.stop();
  }
}

