// What a host's main thread did while the slowest keys waited, from its CPU
// profile (node --cpu-prof): echo-trace.mjs and echo-tail.mjs print it.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The newest main-thread profile in `dir` (of the process `pid`, if given). */
export function newestProfile(dir, pid) {
  const file = readdirSync(dir)
    .filter((name) => name.endsWith('.0.001.cpuprofile') && (pid === undefined || name.includes(`.${pid}.0.`)))
    .sort()
    .at(-1);
  return file && path.join(dir, file);
}

/** What the host's main thread did during the slowest keys, from its CPU profile (the newest main-thread one). */
export function matchProfile(slowest, wallMinusMonotonic, file) {
  if (!file) return;
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const name = (node) => `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.split('/').slice(-2).join('/')}:${node.callFrame.lineNumber + 1}`;
  /** The callback a sample ran under (its first frame of our code, or the event-loop phase), and the function itself. */
  const where = (id) => {
    const stack = [];
    for (let at = id; at !== undefined; at = parent.get(at)) stack.push(nodes.get(at));
    stack.reverse();
    const ours = stack.find((node) => node.callFrame.url.includes('/dist/'));
    return `${ours ? name(ours) : name(stack[1] ?? stack[0])} :: ${name(stack.at(-1))}`;
  };
  const kinds = { idle: 0, gc: 0, program: 0, js: 0 };
  const js = new Map();
  let end = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    end += profile.timeDeltas[i];
    const start = end - profile.timeDeltas[i];
    let overlap = 0;
    for (const key of slowest) {
      const a = (key.sent - wallMinusMonotonic) * 1000;
      const b = (key.got - wallMinusMonotonic) * 1000;
      overlap += Math.max(0, Math.min(end, b) - Math.max(start, a));
    }
    if (overlap === 0) continue;
    const ms = overlap / 1000;
    const fn = nodes.get(profile.samples[i]).callFrame.functionName;
    if (fn === '(idle)') kinds.idle += ms;
    else if (fn === '(garbage collector)') kinds.gc += ms;
    else if (fn === '(program)') kinds.program += ms;
    else {
      kinds.js += ms;
      const at = where(profile.samples[i]);
      js.set(at, (js.get(at) ?? 0) + ms);
    }
  }
  console.log(`  the host's main thread during them (${path.basename(file)}), ms: ${Object.entries(kinds).map(([k, v]) => `${k} ${v.toFixed(0)}`).join(', ')}`);
  for (const [at, ms] of [...js].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`    ${ms.toFixed(0).padStart(5)}  ${at}`);
}

/**
 * The main thread's busy runs of at least `minMs` between two wall-clock
 * times (consecutive samples that are not idle), each with what it ran most:
 * the turns a key arriving meanwhile waited behind. Counted by what they ran.
 */
export function longTurns(file, fromWall, toWall, wallMinusMonotonic, minMs = 1) {
  if (!file) return;
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const label = (id) => {
    const stack = [];
    for (let at = id; at !== undefined; at = parent.get(at)) stack.push(nodes.get(at));
    stack.reverse();
    const leaf = stack.at(-1).callFrame.functionName;
    if (leaf === '(garbage collector)' || leaf === '(program)') return leaf;
    const ours = stack.find((node) => node.callFrame.url.includes('/dist/'));
    const frame = (ours ?? stack[1] ?? stack[0]).callFrame;
    return `${frame.functionName || '(anonymous)'} ${frame.url.split('/').slice(-2).join('/')}:${frame.lineNumber + 1}`;
  };
  const from = (fromWall - wallMinusMonotonic) * 1000;
  const to = (toWall - wallMinusMonotonic) * 1000;
  const runs = [];
  let run;
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i];
    if (t < from || t > to) continue;
    const idle = nodes.get(profile.samples[i]).callFrame.functionName === '(idle)';
    if (idle) {
      if (run && run.us >= minMs * 1000) runs.push(run);
      run = undefined;
      continue;
    }
    const dt = profile.timeDeltas[i + 1] ?? 0;
    run ??= { us: 0, what: new Map() };
    run.us += dt;
    const what = label(profile.samples[i]);
    run.what.set(what, (run.what.get(what) ?? 0) + dt);
  }
  const byWhat = new Map();
  for (const r of runs) {
    const top = [...r.what].sort((a, b) => b[1] - a[1])[0][0];
    const entry = byWhat.get(top) ?? { n: 0, ms: 0, max: 0 };
    entry.n++;
    entry.ms += r.us / 1000;
    entry.max = Math.max(entry.max, r.us / 1000);
    byWhat.set(top, entry);
  }
  console.log(`  busy runs of the main thread >= ${minMs} ms over the keys: ${runs.length}`);
  for (const [what, e] of [...byWhat].sort((a, b) => b[1].ms - a[1].ms).slice(0, 12)) console.log(`    ${e.n} runs, ${e.ms.toFixed(1)} ms, max ${e.max.toFixed(1)}: ${what}`);
}
