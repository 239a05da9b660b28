// Figure 15: a remote host in the panel, over ssh on loopback (a real sshd, a test user running the checkout's
// ptydeck). The local core relays the remote's panel protocol through `ssh … ptydeck panel-channel`; its
// baselines are ssh itself: keystroke echo against `ssh DEST cat` (a byte in, the same byte out), delivery
// against `ssh DEST cat <file>` read here. Neither has a terminal, while a remote session's bytes pass a PTY
// there, so each has a like-for-like row beside it (info): the same through `ssh -tt DEST`, a PTY on the
// remote (`stty raw -echo; exec cat` for echo, as figure 3 does; `cat <file>` for delivery). A fourth delivery,
// no ssh at all, is the PTY's own ceiling: `cat <file>` on a bare PTY whose master python3 reads as fast as it
// can, which bounds every path that carries a terminal's output. Keystrokes and deliveries alternate between
// the paths so all see the same load. Three more echo paths, in the details, say where a remote key's time goes:
// the box's host alone (a panel of its own user there), then with `panel-channel` (over a pipe), then with ssh
// (the channel straight over `ssh -T`, no host here); the product adds this machine's host to the last.
import { spawn, spawnSync } from 'node:child_process';
import { chownSync, copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sshArgs } from '../packages/core/dist/remote/ssh-launch.js';
import { ChannelSocket } from './lib/channel-socket.mjs';
import { deferred, median, MiB, now, onCleanup, row, summarize, withDeadline } from './lib/harness.mjs';
import { startCoreHost } from './lib/hosts.mjs';
import { PanelClient } from './lib/panel-client.mjs';
import { keyFor } from './lib/raw-pty.mjs';
import { canRunSshBox, startSshBox } from './lib/ssh-box.mjs';

const ECHO_RATIO_TARGET = 1.5;
const DELIVERY_TARGET = 0.8;
const WARMUP_KEYS = 50;
/** Typed into a shell: a raw `cat` echoing each key once, and a marker the typed line itself does not contain. */
const RAW_CAT = 'stty raw -echo; printf "READY%s" 42; exec cat\r';
/**
 * `cat FILE` on a bare PTY (the slave's termios as a new terminal's: output
 * processing on, as in a remote shell), its master read by python3 into one
 * reused 1 MiB buffer until EIO; prints the bytes and seconds from the fork.
 * Python's loop costs little next to the kernel's: a PTY master hands out at
 * most 4095 bytes per read and its writer blocks on a few KiB.
 */
const PTY_CEILING_SCRIPT = [
  'import os, pty, sys, time',
  'buf = bytearray(1 << 20)',
  'started = time.perf_counter()',
  'pid, fd = pty.fork()',
  "if pid == 0: os.execvp('cat', ['cat', sys.argv[1]])",
  'n = 0',
  'while True:',
  '    try: k = os.readv(fd, [buf])',
  '    except OSError: break',
  '    if k == 0: break',
  '    n += k',
  'seconds = time.perf_counter() - started',
  'os.waitpid(pid, 0)',
  "print(n, seconds)",
].join('\n');

export async function run(ctx) {
  const { workspace, data, sizes, reps } = ctx;
  if (!canRunSshBox()) {
    return { rows: [row({ figure: '15', metric: 'remote host over ssh: skipped (needs root, /usr/sbin/sshd and ssh-keygen)', note: 'skipped' })], details: { skipped: true } };
  }
  const box = await startSshBox();
  const unregister = onCleanup(() => box.close());
  const configDir = path.join(workspace.home, '.config', 'ptydeck');
  mkdirSync(configDir, { recursive: true });
  writeFileSync(path.join(configDir, 'remotes.json'), JSON.stringify({ remotes: { box: { destination: box.alias } } }));
  // The flood file where the remote user can read it.
  const remoteFile = path.join(box.home, 'plain.txt');
  copyFileSync(data.plain.path, remoteFile);
  chownSync(remoteFile, box.uid, box.uid);
  const host = await startCoreHost({ ...workspace, env: { ...workspace.env, PTYDECK_SSH: box.ssh } });
  let client;
  let sshCat;
  let sshTty;
  let parts;
  try {
    client = await PanelClient.connect(host.ready.url, host.ready.panelToken);
    const connected = client.nextJson((m) => m.type === 'hosts' && m.hosts[0]?.state === 'connected', 60_000, 'the link to box');
    client.send({ type: 'hosts.watch' });
    await connected;

    // ---- echo ----
    const echoId = await remoteShell(client, 'e');
    await client.typeUntil(echoId, RAW_CAT, 'READY42');
    sshCat = spawn(box.ssh, ['-T', box.alias, 'cat'], { stdio: ['pipe', 'pipe', 'ignore'] });
    sshTty = spawn(box.ssh, ['-tt', box.alias], { stdio: ['pipe', 'pipe', 'ignore'] });
    await rawCatOverTty(sshTty);
    parts = await startEchoParts(box);
    const paths = { ssh: sshEchoer(sshCat), tty: sshEchoer(sshTty), core: (i) => client.echoLatency(echoId, i), ...parts.paths };
    for (let i = 0; i < WARMUP_KEYS; i++) for (const echo of Object.values(paths)) await echo(i);
    const names = Object.keys(paths);
    const samples = Object.fromEntries(names.map((name) => [name, []]));
    for (let i = 0; i < sizes.keystrokes; i++) {
      // Each key rotates which path goes first.
      for (let k = 0; k < names.length; k++) {
        const name = names[(i + k) % names.length];
        samples[name].push(await paths[name](i));
      }
    }
    const c = summarize(samples.core);
    const b = summarize(samples.ssh);
    const t = summarize(samples.tty);
    const parted = Object.fromEntries(Object.keys(parts.paths).map((name) => [name, summarize(samples[name])]));
    const ms = (summary) => `${summary.p50.toFixed(2)} / ${summary.p99.toFixed(2)}`;
    ctx.log(
      `  echo p50 / p99 ms: ssh -T cat ${ms(b)}; the box's host alone ${ms(parted.boxHost)}, + panel-channel ${ms(parted.channel)}, + ssh ${ms(parted.sshChannel)}, + this machine's host (the product) ${ms(c)}`,
    );

    // ---- delivery ----
    const runs = [];
    const ceiling = canRunPython();
    for (let i = 0; i < reps; i++) {
      const variants = ['ssh', 'tty', 'panel', ...(ceiling ? ['pty'] : [])];
      const result = {};
      for (let k = 0; k < variants.length; k++) {
        const variant = variants[(i + k) % variants.length];
        if (variant === 'ssh') result.ssh = await sshDelivery(box, remoteFile, '-T');
        else if (variant === 'tty') result.tty = await sshDelivery(box, remoteFile, '-tt');
        else if (variant === 'pty') result.pty = await ptyCeiling(data.plain.path);
        else result.panel = await panelDelivery(client, remoteFile, data.plain.ptyBytes, `d${i}`);
      }
      ctx.log(
        `  rep ${i + 1}: ssh -T cat ${result.ssh.mbps.toFixed(1)} MB/s, ssh -tt cat ${result.tty.mbps.toFixed(1)} MB/s, remote session in the panel ${result.panel.mbps.toFixed(1)} MB/s (${result.panel.skipped} bytes skipped by resyncs)${result.pty ? `, bare PTY ${result.pty.mbps.toFixed(1)} MB/s` : ''}`,
      );
      runs.push(result);
    }
    const ratio = median(runs.map((r) => r.panel.mbps / r.ssh.mbps));
    const ttyRatio = median(runs.map((r) => r.panel.mbps / r.tty.mbps));
    const ceilingRow = ceiling
      ? row({
          figure: '15',
          metric: 'PTY ceiling, cat through a bare PTY (MB/s)',
          value: median(runs.map((r) => r.pty.mbps)),
          baseline: median(runs.map((r) => r.ssh.mbps)),
          ratio: median(runs.map((r) => r.pty.mbps / r.ssh.mbps)),
          note: `baseline: ssh -T DEST cat <file>; no ssh, python3 reading the master; the panel's delivery is ${median(runs.map((r) => r.panel.mbps / r.pty.mbps)).toFixed(2)}x of it`,
        })
      : row({ figure: '15', metric: 'PTY ceiling, cat through a bare PTY: skipped (needs python3)', note: 'skipped' });
    return {
      rows: [
        row({ figure: '15', metric: `remote keystroke echo p50, ${c.n} keys (ms)`, value: c.p50, baseline: b.p50, note: 'baseline: ssh DEST cat' }),
        row({ figure: '15', metric: `remote keystroke echo p99, ${c.n} keys (ms)`, value: c.p99, baseline: b.p99, target: `<= ${ECHO_RATIO_TARGET}x ssh cat`, pass: c.p99 <= ECHO_RATIO_TARGET * b.p99 }),
        row({ figure: '15', metric: `remote keystroke echo p50, like for like (ms)`, value: c.p50, baseline: t.p50, note: 'baseline: ssh -tt DEST, raw cat on a PTY there' }),
        row({ figure: '15', metric: `remote keystroke echo p99, like for like (ms)`, value: c.p99, baseline: t.p99, note: 'baseline: ssh -tt DEST, raw cat on a PTY there' }),
        row({
          figure: '15',
          metric: `remote delivery, cat plain text ${Math.round(data.plain.bytes / MiB)} MiB (MB/s)`,
          value: median(runs.map((r) => r.panel.mbps)),
          baseline: median(runs.map((r) => r.ssh.mbps)),
          ratio,
          target: `>= ${DELIVERY_TARGET}x ssh cat <file>`,
          pass: ratio >= DELIVERY_TARGET,
        }),
        row({
          figure: '15',
          metric: `remote delivery, like for like (MB/s)`,
          value: median(runs.map((r) => r.panel.mbps)),
          baseline: median(runs.map((r) => r.tty.mbps)),
          ratio: ttyRatio,
          note: 'baseline: ssh -tt DEST cat <file>, a PTY there',
        }),
        ceilingRow,
      ],
      details: { echo: { core: c, ssh: b, sshTty: t, ...parted }, delivery: runs },
    };
  } finally {
    sshCat?.kill();
    sshTty?.kill();
    await parts?.close();
    await client?.close();
    await host.stop();
    await box.close();
    unregister();
  }
}

/** Opens the remote user's shell on box through the panel (a panel of box's own host: `host` undefined); resolves with its id once its prompt shows. */
async function remoteShell(client, requestId, host = 'box') {
  const created = client.nextJson((m) => m.type === 'created' && m.requestId === requestId, 30_000, 'a remote shell');
  client.send({ type: 'create', requestId, ...(host ? { host } : {}), cols: 120, rows: 40 });
  const { message } = await created;
  const id = message.info.id;
  client.attach(id, null);
  await client.until(() => client.stream(id).next !== null, 30_000, 'its screen');
  await client.typeUntil(id, 'printf "UP%s\\n" 1\r', 'UP1');
  return id;
}

/**
 * The echo paths that take this machine's hops away one by one, each a raw
 * `cat` in a shell of the box's host: `boxHost` a panel of the box's user
 * there (remote-echo-probe.mjs, which times each key itself), `channel`
 * `ptydeck panel-channel` run there as that user over pipes, `sshChannel` the
 * same through its own `ssh -T` (as `ssh -T DEST cat` is, no shared master).
 */
async function startEchoParts(box) {
  const asUser = { uid: box.uid, gid: box.uid, cwd: box.home, env: { HOME: box.home, USER: box.user, PATH: `${path.dirname(process.execPath)}:/usr/bin:/bin`, LANG: 'C.UTF-8' } };
  const probe = spawn(process.execPath, [fileURLToPath(new URL('./lib/remote-echo-probe.mjs', import.meta.url))], { ...asUser, stdio: ['pipe', 'pipe', 'inherit'] });
  const pipe = spawn(path.join(box.home, '.local', 'bin', 'ptydeck'), ['panel-channel'], { ...asUser, stdio: ['pipe', 'pipe', 'ignore'] });
  const overSsh = spawn(box.ssh, sshArgs({ destination: box.alias }, ['panel-channel']), { stdio: ['pipe', 'pipe', 'ignore'] });
  const children = [probe, pipe, overSsh];
  const close = async () => {
    for (const child of children) child.kill();
  };
  try {
    const answers = lineReader(probe.stdout);
    await withDeadline(answers(), 60_000, "the box's own panel probe");
    const paths = {
      boxHost: async (i) => {
        probe.stdin.write(`${i}\n`);
        return Number(await withDeadline(answers(), 10_000, "the box's host echo"));
      },
    };
    for (const [name, child] of [['channel', pipe], ['sshChannel', overSsh]]) {
      const channel = new PanelClient(new ChannelSocket(child));
      await withDeadline(channel.snapshot.promise, 60_000, `the ${name} path's snapshot`);
      const id = await remoteShell(channel, name, undefined);
      await channel.typeUntil(id, RAW_CAT, 'READY42');
      paths[name] = (i) => channel.echoLatency(id, i);
    }
    return { paths, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Reads a stream line by line: each call resolves with the next line. */
function lineReader(stream) {
  const lines = [];
  let waiting = null;
  let partial = '';
  stream.on('data', (chunk) => {
    const parts = (partial + chunk.toString('utf8')).split('\n');
    partial = parts.pop();
    lines.push(...parts);
    waiting?.();
  });
  return async () => {
    while (lines.length === 0) await new Promise((resolve) => (waiting = resolve));
    waiting = null;
    return lines.shift();
  };
}

/** One keystroke through `ssh -T DEST cat`: a byte in, its echo out, in ms. */
function sshEchoer(child) {
  let waiting = null;
  child.stdout.on('data', () => {
    const resolve = waiting;
    waiting = null;
    resolve?.();
  });
  return async (i) => {
    const started = now();
    const echoed = new Promise((resolve) => (waiting = resolve));
    child.stdin.write(keyFor(i));
    await withDeadline(echoed, 10_000, 'ssh cat echo');
    return now() - started;
  };
}

/** `ssh -tt DEST` with its login shell on a PTY there, turned into a raw `cat`: resolves once it echoes nothing but what it is sent. */
async function rawCatOverTty(child) {
  let text = '';
  const ready = deferred();
  const listen = (chunk) => {
    text += chunk.toString('latin1');
    // The PTY echoes the typed line first; 'READY%s' there is not 'READY42'.
    if (text.includes('READY42')) ready.resolve();
  };
  child.stdout.on('data', listen);
  child.stdin.write('stty raw -echo; printf "READY%s" 42; exec cat\r');
  try {
    await withDeadline(ready.promise, 30_000, 'a raw cat over ssh -tt');
  } finally {
    child.stdout.off('data', listen);
  }
}

/** `ssh FLAG DEST cat <file>` read here: -T a pipe there, -tt a PTY there (its stdin kept open, so ssh sends no EOF to it). */
async function sshDelivery(box, file, flag) {
  const started = now();
  const child = spawn(box.ssh, [flag, box.alias, 'cat', file], { stdio: ['pipe', 'pipe', 'ignore'] });
  let bytes = 0;
  child.stdout.on('data', (chunk) => (bytes += chunk.length));
  await withDeadline(new Promise((resolve) => child.once('close', resolve)), 300_000, `ssh ${flag} cat <file>`);
  child.stdin.destroy();
  const seconds = (now() - started) / 1000;
  return { bytes, seconds, mbps: bytes / 1e6 / seconds };
}

function canRunPython() {
  return spawnSync('python3', ['-c', 'import pty']).status === 0;
}

/** `cat <file>` on a bare PTY on this machine, its master read by python3 (PTY_CEILING_SCRIPT): no ssh, no ptydeck. */
async function ptyCeiling(file) {
  const child = spawn('python3', ['-c', PTY_CEILING_SCRIPT, file], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  const code = await withDeadline(new Promise((resolve) => child.once('close', resolve)), 300_000, 'cat through a bare PTY');
  const [bytes, seconds] = out.trim().split(' ').map(Number);
  if (code !== 0 || !(bytes > 0) || !(seconds > 0)) throw new Error(`the PTY ceiling's python3 failed (exit ${code}): ${out}`);
  return { bytes, seconds, mbps: bytes / 1e6 / seconds };
}

/** A fresh remote shell, its echo off, then `exec cat <file>`: from the Enter until every byte of it reached this client. */
async function panelDelivery(client, file, ptyBytes, requestId) {
  const id = await remoteShell(client, requestId);
  await client.typeUntil(id, 'stty -echo; printf "QUIET%s\\n" 1\r', 'QUIET1');
  const stream = client.stream(id);
  const start = stream.next;
  const skippedBefore = stream.skipped;
  const started = now();
  client.send({ type: 'input', id, data: `exec cat ${file}\r` });
  await client.until(() => stream.next - start >= ptyBytes, 300_000, 'delivery of every byte');
  const seconds = (now() - started) / 1000;
  client.send({ type: 'detach', id });
  return { bytes: stream.next - start, seconds, skipped: stream.skipped - skippedBefore, mbps: (stream.next - start) / 1e6 / seconds, orderErrors: stream.orderErrors };
}
