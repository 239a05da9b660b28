// `node bench/late-turns.mjs <host .cpuprofile> <BENCH_LOOP_WINDOWS file> [labels]`: for each turn of
// the host's loop that a delay window saw run late (over 15 ms, bench/lib/core-host.mjs), what the
// host's main thread was doing in it, from its --cpu-prof samples: the functions (self time) and
// the first frames of their stacks in our code. A turn whose time is mostly one gap between
// samples, or "(idle)", was the machine's, not the host's (the thread was not running). Labels
// name the windows in turn, repeating (figure 8: run,read,small,ingest,ingest,run,read,small).
// Environment: MIN (ms, default 30) shows only turns at least that late; DEPTH (default 4) frames;
// KIND=read: figure 5's slow screen reads instead of late turns (give the screen worker's profile too).
import { readFileSync } from 'node:fs';
const [file, winFile, labelsArg] = process.argv.slice(2);
const p = JSON.parse(readFileSync(file, 'utf8'));
const lines = readFileSync(winFile, 'utf8').trim().split('\n').map((l) => l.split(' '));
const labels = (labelsArg ?? '').split(',');
let k = -1;
const late = [];
for (const [, what, a, b, c] of lines) { if (what === 'start') k++; if (what === (process.env.KIND ?? 'late')) late.push({ k, from: Number(a), to: Number(b), cpuMs: c === undefined ? NaN : Number(c) / 1000 }); }
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const name = (n) => `${n.callFrame.functionName || '(anon)'} ${(n.callFrame.url || '').split('/').slice(-2).join('/')}:${n.callFrame.lineNumber + 1}`;
const stack = (id) => { const s = []; for (let x = id; x !== undefined; x = parent.get(x)) s.push(byId.get(x)); return s.reverse(); };
let t = p.startTime;
const samples = p.samples.map((id, i) => { t += p.timeDeltas[i]; return { id, t, dt: p.timeDeltas[i] }; });
const depth = Number(process.env.DEPTH ?? 4);
const minMs = Number(process.env.MIN ?? 30);
const totals = new Map();
for (const l of late) {
  const ms = (l.to - l.from) / 1000;
  if (ms < minMs) continue;
  const inside = samples.filter((s) => s.t > l.from && s.t <= l.to);
  const self = new Map(); const roots = new Map();
  let maxGap = 0; let idleMs = 0;
  for (const s of inside) {
    maxGap = Math.max(maxGap, s.dt);
    const n = byId.get(s.id); const key = name(n);
    if (n.callFrame.functionName === '(idle)') idleMs += s.dt / 1000;
    self.set(key, (self.get(key) ?? 0) + s.dt / 1000);
    const st = stack(s.id).filter((x) => x.callFrame.url && !x.callFrame.url.startsWith('node:'));
    const rk = st.slice(0, depth).map(name).join(' > ') || key;
    roots.set(rk, (roots.get(rk) ?? 0) + s.dt / 1000);
    totals.set(rk, (totals.get(rk) ?? 0) + s.dt / 1000);
  }
  console.log(`\n#${l.k} ${labels[l.k % labels.length] ?? ''}: late turn ${ms.toFixed(1)} ms (main thread on a CPU ${l.cpuMs.toFixed(1)} ms), ${inside.length} samples, idle ${idleMs.toFixed(1)} ms, max sample gap ${(maxGap / 1000).toFixed(1)} ms`);
  for (const [key, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 6)) console.log(`  self ${v.toFixed(1)} ms ${key}`);
  for (const [key, v] of [...roots].sort((a, b) => b[1] - a[1]).slice(0, 6)) console.log(`  root ${v.toFixed(1)} ms ${key}`);
}
console.log('\nTotals over late turns:');
for (const [key, v] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`  ${v.toFixed(1)} ms ${key}`);
// Per window label: the late turns' longest wall time and the most main-thread CPU one of them took.
const byLabel = new Map();
for (const l of late) {
  const label = labels[l.k % labels.length] ?? '';
  const s = byLabel.get(label) ?? { turns: 0, wall: 0, cpu: 0 };
  s.turns++;
  s.wall = Math.max(s.wall, (l.to - l.from) / 1000);
  s.cpu = Math.max(s.cpu, l.cpuMs);
  byLabel.set(label, s);
}
console.log('\nBy window label (all late turns): count, longest, most main-thread CPU in one:');
for (const [label, s] of byLabel) console.log(`  ${label || '-'}: ${s.turns}, ${s.wall.toFixed(1)} ms, ${s.cpu.toFixed(1)} ms`);
