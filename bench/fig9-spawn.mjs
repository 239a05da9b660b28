// Figure 9: typing while sessions are created. A running session (the echo
// program of figure 3) gets a key, waits for its echo, and again, while the
// core creates N interactive shells (N = the scale figure's session count)
// that all arrive at once, as a hundred agents' terminal_create or a panel
// restoring its tabs would. node-pty spawns synchronously (3 to 7 ms a
// session here), so what matters is how many spawns one turn of the core's
// loop holds.
// Baseline: the same N created in the turn they arrive in, as the core did
// before spawns took turns (createMany); value: through the spawn queue every
// creator in the product uses (createTaking, pty/spawn-turns.ts). Both in the
// same core process, the baseline first, with the shells removed in between.
import { row, summarize } from './lib/harness.mjs';
import { startCoreHost } from './lib/hosts.mjs';
import { PanelClient } from './lib/panel-client.mjs';

const ECHO_MAX_TARGET_MS = 100;
const WARMUP_KEYS = 20;

export async function run(ctx) {
  const { workspace, sizes } = ctx;
  const n = sizes.scaleSessions;
  const host = await startCoreHost(workspace, { maxSessions: n + 8 });
  let client;
  try {
    client = await PanelClient.connect(host.ready.url, host.ready.panelToken);
    const echoId = await client.startEcho(host, workspace.home, WARMUP_KEYS);
    let keys = WARMUP_KEYS;

    const inputs = Array.from({ length: n }, () => ({ command: workspace.bash, args: ['--norc', '--noprofile', '-i'], cwd: workspace.home }));
    const burst = async (op) => {
      const samples = [];
      let created = false;
      const typing = (async () => {
        while (!created) samples.push(await client.echoLatency(echoId, keys++));
      })();
      const started = performance.now();
      const ids = await host.request(op, { inputs });
      const ms = performance.now() - started;
      created = true;
      await typing;
      await Promise.all(ids.map((id) => host.request('remove', { id })));
      return { keys: summarize(samples), ms };
    };
    const atOnce = await burst('createMany');
    const taking = await burst('createTaking');
    ctx.log(`  ${n} shells created at once in ${atOnce.ms.toFixed(0)} ms (echo max ${atOnce.keys.max.toFixed(1)} ms, ${atOnce.keys.n} keys); taking turns in ${taking.ms.toFixed(0)} ms (echo max ${taking.keys.max.toFixed(1)} ms, ${taking.keys.n} keys)`);
    const rows = [
      row({
        figure: '9',
        metric: `keystroke echo max on a running session while ${n} shells are created (ms)`,
        value: taking.keys.max,
        baseline: atOnce.keys.max,
        target: `< ${ECHO_MAX_TARGET_MS} ms`,
        pass: taking.keys.max < ECHO_MAX_TARGET_MS,
        note: `baseline: all ${n} spawned in the turn they arrived in; ${taking.keys.n} / ${atOnce.keys.n} keys`,
      }),
      row({ figure: '9', metric: `  keystroke echo p50 meanwhile (ms)`, value: taking.keys.p50, baseline: atOnce.keys.p50 }),
      row({ figure: '9', metric: `  time to create the ${n} shells (ms)`, value: taking.ms, baseline: atOnce.ms }),
    ];
    return { rows, details: { atOnce, taking } };
  } finally {
    client?.close();
    await host.stop();
  }
}
