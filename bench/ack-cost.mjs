// What one panel ack costs the host's main thread once its path is warm: `node bench/ack-cost.mjs [checkout,...] [warmUpAcks] [acks] [rounds]`.
// Each checkout gets a core host of its own (its bench/lib/hosts.mjs, as figure 2's) and a panel client (its
// bench/lib/panel-client.mjs, on `ws`), attached to a session that printed 64 KiB and sleeps. The client sends
// `warmUpAcks` acks back to back, then, per round and checkout in rotated order, `acks` acks one a timer tick
// (about 1 ms apart, so each is a socket read of its own, as a panel's acks during a flood are) and then waits
// as long again sending nothing; the ack's cost is the main thread's CPU (/proc/<pid>/task/<pid>/schedstat)
// in the first span minus the second, per ack. Each ack credits 1 byte more of the 64 KiB sent, so it runs the
// whole of ViewerStreams.ack (the window's pace and all) except a pump: nothing is held back by the window.
// A fifth argument `burst` sends the measured acks 64 at a time instead, a few socket reads for them all: the
// difference is what the wake-up and read for each ack cost.
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { threadTimes } from './lib/thread-cpu.mjs';

const [trees = '.', warmArg = '20000', acksArg = '3000', roundsArg = '3', mode = 'tick'] = process.argv.slice(2);
const SENT = 64 * 1024;
const setups = [];
const mainMs = (pid) => threadTimes(pid)[String(pid)].cpuMs;
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function setUp(dir) {
  const tree = path.resolve(dir);
  const harness = await import(path.resolve(tree, 'bench/lib/harness.mjs'));
  const hosts = await import(path.resolve(tree, 'bench/lib/hosts.mjs'));
  const { PanelClient } = await import(path.resolve(tree, 'bench/lib/panel-client.mjs'));
  const workspace = harness.createWorkspace();
  const host = await hosts.startCoreHost(workspace);
  const client = await PanelClient.connect(host.ready.url, host.ready.panelToken);
  const id = await host.request('create', { input: { command: 'bash', args: ['-c', `printf %0${SENT}d 0; exec sleep 600`], cwd: workspace.home } });
  const stream = client.stream(id);
  client.attach(id, 0);
  await client.until(() => stream.bytes + stream.skipped >= SENT, 30_000, 'the 64 KiB');
  return { name: path.basename(tree), host, client, id, cursor: 0, samples: [], workspace, harness };
}

/** `count` acks, each one byte further, one a timer tick (or back to back with `tick` false). */
async function acks(setup, count, tick) {
  for (let i = 0; i < count; i++) {
    setup.cursor = (setup.cursor % (SENT - 1)) + 1;
    setup.client.send({ type: 'ack', id: setup.id, cursor: setup.cursor });
    if (tick) await sleep(0);
    else if (i % 64 === 63) await new Promise((resolve) => setImmediate(resolve));
  }
}

try {
  for (const dir of trees.split(',')) setups.push(await setUp(dir));
  for (const setup of setups) await acks(setup, Number(warmArg), false);
  const count = Number(acksArg);
  for (let round = 0; round < Number(roundsArg); round++) {
    for (let k = 0; k < setups.length; k++) {
      const setup = setups[(k + round) % setups.length];
      const pid = setup.host.pid;
      const started = performance.now();
      const before = mainMs(pid);
      await acks(setup, count, mode === 'tick');
      await sleep(20); // the last acks' reads
      const busy = mainMs(pid) - before;
      const span = performance.now() - started;
      const idleBefore = mainMs(pid);
      await sleep(span);
      const idle = mainMs(pid) - idleBefore;
      const usPerAck = ((busy - idle) * 1000) / count;
      setup.samples.push(usPerAck);
      console.error(`round ${round + 1} ${setup.name}: main thread ${busy.toFixed(1)} ms with ${count} acks, ${idle.toFixed(1)} ms idle as long (${span.toFixed(0)} ms): ${usPerAck.toFixed(1)} us per ack`);
    }
  }
  for (const setup of setups) console.log(`${setup.name.padEnd(16)} ${median(setup.samples).toFixed(1)} us per ack (median of ${setup.samples.map((s) => s.toFixed(1)).join(' ')})`);
} finally {
  for (const setup of setups) {
    await setup.client.close().catch(() => {});
    await setup.host.stop().catch(() => {});
    setup.workspace.dispose();
  }
}
