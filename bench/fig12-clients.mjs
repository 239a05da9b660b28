// Figure 12: what a client costs. `ptydeck ls` with 5 and with 100 sessions,
// `ptydeck url`, and `ptydeck attach` until its first frame (the session's
// screen) is on stdout, each a fresh process of the real CLI against the real
// host (startHost, in a process of its own), timed from spawn and with its
// peak RSS (GNU time's maximum resident set). Baseline: `node -e 0`, run in
// the same rounds, alternating with each command; `tmux ls` with five
// sessions beside it for scale. Target: each command within 1.5x of
// `node -e 0` in time, and at most 60 MiB peak.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { deferred, median, MiB, now, REPO_DIR, row, withDeadline } from './lib/harness.mjs';
import { startCoreHost } from './lib/hosts.mjs';

const TIME_TARGET = 1.5;
const RSS_TARGET_MIB = 60;
const PTYDECK_BIN = path.join(REPO_DIR, 'packages', 'core', 'bin', 'ptydeck.js');
const GNU_TIME = '/usr/bin/time';
const READY = 'fig12-ready';
const COMMAND_MS = 30_000;

export async function run(ctx) {
  const { workspace } = ctx;
  if (!existsSync(GNU_TIME)) throw new Error(`${GNU_TIME} (GNU time) is needed to read a command's peak RSS`);
  const rounds = ctx.quick ? 5 : 10;
  const host = await startCoreHost(workspace, { maxSessions: 110 });
  const tmux = startTmux(workspace);
  try {
    const env = { ...workspace.env, PTYDECK_STATE_DIR: host.ready.stateDir };
    const create = (args) => host.request('create', { input: { command: 'sh', args: ['-c', args], cwd: workspace.home } });
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await create(`echo ${READY}-${i}; exec sleep 3600`));
    const commands = {
      node: { argv: ['-e', '0'] },
      ls5: { argv: [PTYDECK_BIN, 'ls'] },
      url: { argv: [PTYDECK_BIN, 'url'] },
      attach: { argv: [PTYDECK_BIN, 'attach', ids[0]], until: `${READY}-0` },
      // For scale: the floor of any Node client of this host, `ls`'s one request and nothing else.
      bare: { argv: ['-e', bareRequest(host.ready.url)] },
    };
    // One untimed run of each warms the page cache.
    for (const command of Object.values(commands)) await timed(command, env);
    const samples = await roundsOf(rounds, commands, env);
    await tmux.ready;
    const tmuxLs = { exec: 'tmux', argv: tmux.args('ls') };
    await timed(tmuxLs, env);
    samples.tmux = [];
    for (let i = 0; i < rounds; i++) samples.tmux.push(await timed(tmuxLs, env));
    for (let i = 5; i < 100; i++) ids.push(await create(`exec sleep 3600`));
    // A first run before the rounds, as every other command had above: the host's first look at 95 new processes
    // (their labels and command lines, each stat file opened) is paid once, not by one of the row's samples.
    await timed(commands.ls5, env);
    const hundred = await roundsOf(rounds, { node: commands.node, ls100: commands.ls5 }, env);
    samples.ls100 = hundred.ls100;
    samples.node.push(...hundred.node);
    return report(ctx, samples);
  } finally {
    tmux.stop();
    await host.stop();
  }
}

/**
 * A bare Node client of the host: connect, write `ls`'s `POST /snapshot` (naming its pid, as ls does), read the
 * answer to its end, exit. No bundle, no kernel check of the host, no output: what node:net and one round trip to
 * the host's judgement cost over `node -e 0`, which `ptydeck ls` cannot go below.
 */
function bareRequest(url) {
  const { hostname, port, host } = new URL(url);
  const request = `POST /snapshot HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\nptydeck-asker-pid: PID\r\nContent-Length: 0\r\n\r\n`;
  return `const s = require('node:net').connect(${port}, ${JSON.stringify(hostname)}); s.on('connect', () => s.end(${JSON.stringify(request)}.replace('PID', process.pid))); s.on('data', () => {}); s.on('end', () => process.exit(0));`;
}

/** `rounds` rounds, each running every command once, in an order that rotates so none always follows another. */
async function roundsOf(rounds, commands, env) {
  const names = Object.keys(commands).filter((name) => name !== 'node');
  const samples = Object.fromEntries(Object.keys(commands).map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(k + round) % names.length];
      // The baseline right before each command, so both see the same moment's load.
      samples.node.push(await timed(commands.node, env));
      samples[name].push(await timed(commands[name], env));
    }
  }
  return samples;
}

/**
 * Runs one command under GNU time: ms from spawn to its exit (or, with
 * `until`, to that text on its stdout, when it is then ended) and its peak RSS.
 */
async function timed(command, env) {
  const argv = command.exec ? [command.exec, ...command.argv] : [process.execPath, ...command.argv];
  const started = now();
  const child = spawn(GNU_TIME, ['-f', 'peak %M', ...argv], { env, cwd: env.HOME, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let ms;
  const seen = deferred();
  child.stdout.on('data', (chunk) => {
    out += chunk;
    if (command.until && ms === undefined && out.includes(command.until)) {
      ms = now() - started;
      seen.resolve();
    }
  });
  child.stderr.on('data', (chunk) => (err += chunk));
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  if (command.until) {
    await withDeadline(Promise.race([seen.promise, exited.then(() => Promise.reject(new Error(`${argv.join(' ')} exited before its first frame: ${err.trim()}`)))]), COMMAND_MS, argv.join(' '));
    // Detached as a person would (Ctrl-\\ d), so attach exits and GNU time reports its peak.
    child.stdin.end('\x1cd');
  }
  const { code } = await withDeadline(exited, COMMAND_MS, argv.join(' '));
  ms ??= now() - started;
  const peak = /peak (\d+)/.exec(err);
  if (!peak) throw new Error(`${argv.join(' ')}: no peak RSS reported (exit ${code}): ${err.trim()}`);
  if (code !== 0) throw new Error(`${argv.join(' ')} failed (exit ${code}): ${err.trim()}`);
  return { ms, rssMiB: (Number(peak[1]) * 1024) / MiB };
}

/** A private tmux server (-L) with five sessions, for scale. */
function startTmux(workspace) {
  const socket = `ptydeck-bench-${process.pid}`;
  const args = (...rest) => ['-L', socket, '-f', '/dev/null', ...rest];
  const run = (...rest) =>
    new Promise((resolve, reject) => {
      const child = spawn('tmux', args(...rest), { env: workspace.env, stdio: 'ignore' });
      child.once('error', reject);
      child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`tmux ${rest.join(' ')} exited ${code}`))));
    });
  const ready = (async () => {
    for (let i = 0; i < 5; i++) await run('new-session', '-d', '-s', `s${i}`, 'sleep 3600');
  })();
  return {
    args,
    ready,
    stop: () => spawn('tmux', args('kill-server'), { env: workspace.env, stdio: 'ignore' }),
  };
}

function report(ctx, samples) {
  const ms = (name) => median(samples[name].map((s) => s.ms));
  const rss = (name) => median(samples[name].map((s) => s.rssMiB));
  const base = ms('node');
  const baseRss = rss('node');
  ctx.log(
    `  node -e 0 ${base.toFixed(0)} ms ${baseRss.toFixed(0)} MiB; ` +
      ['ls5', 'ls100', 'url', 'attach', 'bare', 'tmux'].map((name) => `${name} ${ms(name).toFixed(0)} ms ${rss(name).toFixed(0)} MiB`).join('; '),
  );
  const rows = [];
  for (const [name, label] of [
    ['ls5', '`ptydeck ls`, 5 sessions'],
    ['ls100', '`ptydeck ls`, 100 sessions'],
    ['url', '`ptydeck url`'],
    ['attach', '`ptydeck attach` to its first frame'],
  ]) {
    const ratio = ms(name) / base;
    rows.push(
      row({
        figure: '12',
        metric: `${label}, p50 of ${samples[name].length} (ms)`,
        value: ms(name),
        baseline: base,
        ratio,
        target: `<= ${TIME_TARGET}x node -e 0`,
        pass: ratio <= TIME_TARGET,
        note: 'baseline: node -e 0 in the same rounds',
      }),
      row({
        figure: '12',
        metric: `  peak RSS (MiB)`,
        value: rss(name),
        baseline: baseRss,
        target: `<= ${RSS_TARGET_MIB} MiB`,
        pass: rss(name) <= RSS_TARGET_MIB,
      }),
    );
  }
  rows.push(row({ figure: '12', metric: 'a bare Node client, `ls`\'s request alone, for scale (ms)', value: ms('bare'), baseline: base, ratio: ms('bare') / base, note: 'node:net and one round trip: the floor of a Node client' }));
  rows.push(row({ figure: '12', metric: '`tmux ls`, 5 sessions, for scale (ms)', value: ms('tmux'), baseline: base, note: 'peak RSS ' + rss('tmux').toFixed(1) + ' MiB' }));
  return { rows, details: Object.fromEntries(Object.entries(samples).map(([name, list]) => [name, { msP50: ms(name), rssMiBP50: rss(name), samples: list }])) };
}
