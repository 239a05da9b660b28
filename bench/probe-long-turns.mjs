// The host's longest turns of the loop in agent calls that end in long work: terminal_wait of a command
// that printed 4 MiB (the output rendered for the result), terminal_wait for that output's last line (the
// output rendered to scan it), and terminal_wait for a line of a program holding many descriptors that
// then listens (the descriptor walk that finds the port's holder).
// `node bench/probe-long-turns.mjs [rounds] [fds] [max_bytes of the terminal_wait]`. Per call: the loop's
// late turns over 5 ms (core-host.mjs BENCH_LOOP_WINDOWS), how many, and the most main-thread CPU one of
// them took. The waits' commands have finished when they are called.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createWorkspace } from './lib/harness.mjs';
import { startAgentHost, startCoreHost } from './lib/hosts.mjs';

const [roundsArg = '5', fdsArg = '19000', maxBytesArg = '16384'] = process.argv.slice(2);
const dir = mkdtempSync(path.join(os.tmpdir(), 'probe-turns-'));
const windows = path.join(dir, 'windows.txt');
process.env.BENCH_HOST_ENV = `BENCH_LOOP_WINDOWS=${windows} BENCH_LATE_US=5000`;
const workspace = createWorkspace();
// In the data directory: an agent's shell may run sandboxed with a private /tmp.
const big = path.join(workspace.data, 'big.log');
writeFileSync(big, Array.from({ length: 70_000 }, (_, i) => `\x1b[1;38;5;${i % 256}m${String(i).padStart(6, '0')}\x1b[0m \x1b[4mcompiled\x1b[24m module_${i}.ts\n`).join(''));
const hold = path.join(workspace.data, 'hold.py');
writeFileSync(hold, [
  'import os, resource, socket, sys, time',
  'resource.setrlimit(resource.RLIMIT_NOFILE, (resource.getrlimit(resource.RLIMIT_NOFILE)[1],) * 2)',
  'fds = [os.open("/dev/null", os.O_RDONLY) for _ in range(int(sys.argv[1]))]',
  's = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen()',
  'print("re" + "ady", s.getsockname()[1], flush=True)',
  'time.sleep(600)',
].join('\n'));
const host = await startCoreHost(workspace);
const agent = await startAgentHost(workspace);
const call = (name, args) => agent.request('call', { name, args });
/** Late turns recorded in the last window: [wall ms, main-thread CPU ms]. */
const lastWindow = () => {
  const lines = readFileSync(windows, 'utf8').trim().split('\n').map((l) => l.split(' '));
  const start = lines.map((l) => l[1]).lastIndexOf('start');
  return lines.slice(start).filter((l) => l[1] === 'late').map(([, , a, b, c]) => [(Number(b) - Number(a)) / 1000, Number(c) / 1000]);
};
const measured = async (work) => {
  await host.request('loopDelayStart');
  const result = await work();
  const delay = await host.request('loopDelayStop');
  const late = lastWindow();
  return { result, maxDelay: delay.max, late: late.length, worstCpu: Math.max(0, ...late.map(([, cpu]) => cpu)), worstWall: Math.max(0, ...late.map(([wall]) => wall)) };
};
const out = { wait: [], pattern: [], fds: [] };
try {
  await agent.request('connect', { url: host.ready.url, token: host.ready.agentToken });
  for (let round = 0; round < Number(roundsArg); round++) {
    const shell = (await call('terminal_create', { cwd: workspace.data })).id;
    // The log printed whole before the wait (a FIFO says so, and the host's ingest of it settles): the wait's
    // late turns are the result's own work, the rendering of its output.
    const fifo = path.join(workspace.data, `printed-${round}`);
    execFileSync('mkfifo', [fifo]);
    await call('terminal_send', { id: shell, text: `cat ${big}; echo printed > ${fifo}\r`, wait_ms: 0 });
    await readFile(fifo, 'utf8');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const w = await measured(() => call('terminal_wait', { id: shell, until: 'exit', timeout_ms: 60_000, max_bytes: Number(maxBytesArg) }));
    out.wait.push(w);
    // The same log printed whole again, then a wait for its last line: the pattern wait renders it to scan it.
    const again = `${fifo}-again`;
    execFileSync('mkfifo', [again]);
    await call('terminal_send', { id: shell, text: `cat ${big}; echo printed > ${again}\r`, wait_ms: 0 });
    await readFile(again, 'utf8');
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const p = await measured(() => call('terminal_wait', { id: shell, until: 'pattern', pattern: 'module_69999\\.ts', timeout_ms: 60_000 }));
    if (p.result.reason !== 'pattern') throw new Error(`no match: ${JSON.stringify(p.result).slice(0, 400)}`);
    out.pattern.push(p);
    await call('terminal_send', { id: shell, text: `python3 ${hold} ${fdsArg}\r`, wait_ms: 0 });
    const f = await measured(() => call('terminal_wait', { id: shell, until: 'pattern', pattern: 'ready \\d+', timeout_ms: 60_000 }));
    if (f.result.reason !== 'pattern') throw new Error(`no line: ${JSON.stringify(f.result).slice(0, 400)}`);
    f.port = f.result.ports_opened !== undefined;
    out.fds.push(f);
    await call('terminal_close', { id: shell, force: true });
  }
} finally {
  await agent.stop().catch(() => {});
  await host.stop().catch(() => {});
  rmSync(dir, { recursive: true, force: true });
  rmSync(workspace.root, { recursive: true, force: true });
}
const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
console.log(`load ${load}; per call: loop delay max ms, late turns (>5 ms), most main-thread CPU in one late turn ms`);
for (const [what, rows] of Object.entries(out)) {
  for (const r of rows) console.log(`${what.padEnd(5)} delay max ${r.maxDelay.toFixed(1)}  late ${r.late}  worst turn CPU ${r.worstCpu.toFixed(1)} (wall ${r.worstWall.toFixed(1)})${r.port === false ? "  (no ports_opened)" : ""}`);
}
