// ptydeck's layering, written down once and checked by `npm test`
// (dependency-rules.test.ts): the contract is runtime-neutral and below
// everything, the app is DOM only, the core never reaches up into the app or
// Electron, the sandboxed preload holds nothing of the core, a folder with a
// public entry (an index.ts) is entered only through it, production code never
// loads a test kit, and no module imports itself round a cycle, type-only
// imports included, since a type cycle is the first step of a value cycle and
// blurs which module is below which.
//
// Tests and their kits run in Node under vitest and look inside what they test:
// they may import Node built-ins and a folder's private files, and are held to
// the rest.
import type { ImportEdge, ImportGraph } from './dependency-graph.js';

export interface Layer {
  name: string;
  /** Its folder, relative to the root, `/` separated, no trailing slash. */
  dir: string;
  /** Names of the layers it may not import. */
  forbids: string[];
  /** Whether it may import Node's built-in modules. */
  node: boolean;
}

export const LAYERS: Layer[] = [
  { name: 'contract', dir: 'packages/contract/src', forbids: ['core', 'app', 'electron main', 'electron preload', 'electron shared'], node: false },
  { name: 'app', dir: 'packages/app/src', forbids: ['core', 'electron main', 'electron preload'], node: false },
  { name: 'core', dir: 'packages/core/src', forbids: ['app', 'electron main', 'electron preload', 'electron shared'], node: true },
  { name: 'electron main', dir: 'electron/src/main', forbids: ['app', 'electron preload'], node: true },
  // Sandboxed: at run time it may require 'electron' alone (its own test runs it so); it
  // types its channel table against main's and the shared bridge.
  { name: 'electron preload', dir: 'electron/src/preload', forbids: ['core', 'app'], node: false },
  { name: 'electron shared', dir: 'electron/src/shared', forbids: ['core', 'app', 'electron main', 'electron preload'], node: false },
];

/** Where the workspace's own package names lead: each package's public entry. */
export const PACKAGE_ENTRIES = {
  '@ptydeck/contract': 'packages/contract/src/index.ts',
  '@ptydeck/core': 'packages/core/src/index.ts',
};

export const SOURCE_DIRS = ['packages', 'electron'];

export interface Violation {
  file: string;
  line: number;
  specifier: string;
  rule: string;
}

export function formatViolation(violation: Violation): string {
  return `${violation.file}:${violation.line}: import '${violation.specifier}': ${violation.rule}`;
}

export function checkDependencyRules(graph: ImportGraph, layers: Layer[] = LAYERS, hostAndClients: FolderRule[] = HOST_AND_CLIENTS): Violation[] {
  return [...layerViolations(graph, layers), ...folderViolations(graph, hostAndClients), ...entryViolations(graph), ...testKitViolations(graph), ...cycleViolations(graph)];
}

// ---- The host and its clients (issue 33) -------------------------------------------------------
// What runs in a client process (client/: finding or starting the host, the stdio bridge, panel
// access, ls, attach, stop, url, status, sandbox check) loads no PTY, screen, tool, chat or store
// code, so a client starts as cheaply as a tmux client; common/ is what both sides share (where a
// host is found, how it proves itself, its paths, headers and environment names); host/ is the one
// composition root; cli/ is the `ptydeck` command, loading host/ only for `host`, `serve` and
// `mcp --embedded`. Tests look inside what they test and are exempt.

export interface FolderRule {
  /** A folder of the core, relative to the root. */
  dir: string;
  /** Folders its production modules may not import. */
  forbids: string[];
}

const CORE = 'packages/core/src';
const HOST_ONLY = ['pty', 'screen', 'terminal-tool', 'chats', 'persist', 'server', 'host'].map((dir) => `${CORE}/${dir}`);

export const HOST_AND_CLIENTS: FolderRule[] = [
  { dir: `${CORE}/common`, forbids: [...HOST_ONLY, `${CORE}/client`, `${CORE}/cli`] },
  { dir: `${CORE}/client`, forbids: [...HOST_ONLY, `${CORE}/cli`] },
  { dir: `${CORE}/host`, forbids: [`${CORE}/client`, `${CORE}/cli`] },
];

function folderViolations(graph: ImportGraph, rules: FolderRule[]): Violation[] {
  const out: Violation[] = [];
  for (const [file, edges] of graph) {
    if (isTestCode(file)) continue;
    const rule = rules.find((candidate) => file.startsWith(`${candidate.dir}/`));
    if (!rule) continue;
    for (const edge of edges) {
      const forbidden = edge.target === undefined ? undefined : rule.forbids.find((dir) => edge.target!.startsWith(`${dir}/`));
      if (forbidden) out.push(violation(file, edge, `${rule.dir}/ may not import ${forbidden}/ (${edge.target})`));
    }
  }
  return out;
}

/**
 * Tests, and the kits only tests import: whatever sits in a `testing/` folder
 * (one per package: the core's is src/testing/), so a kit is known by where it
 * is, never by its name.
 */
export function isTestCode(file: string): boolean {
  return /\.test\.tsx?$/.test(file) || file.includes('/testing/');
}

function layerOf(file: string, layers: Layer[]): Layer | undefined {
  return layers.find((layer) => file.startsWith(`${layer.dir}/`));
}

function layerViolations(graph: ImportGraph, layers: Layer[]): Violation[] {
  const out: Violation[] = [];
  for (const [file, edges] of graph) {
    const layer = layerOf(file, layers);
    if (!layer) continue;
    for (const edge of edges) {
      if (edge.builtin && !layer.node && !isTestCode(file)) {
        out.push(violation(file, edge, `${layer.name} may not import Node built-ins`));
        continue;
      }
      const target = edge.target === undefined ? undefined : layerOf(edge.target, layers);
      if (target && layer.forbids.includes(target.name)) out.push(violation(file, edge, `${layer.name} may not import ${target.name} (${edge.target})`));
    }
  }
  return out;
}

/** Folders with a public entry: each directory holding an index.ts or index.tsx. */
function publicEntries(graph: ImportGraph): Map<string, string> {
  const entries = new Map<string, string>();
  for (const file of graph.keys()) {
    const match = /^(.*)\/index\.tsx?$/.exec(file);
    if (match) entries.set(match[1]!, file);
  }
  return entries;
}

function entryViolations(graph: ImportGraph): Violation[] {
  const entries = publicEntries(graph);
  const out: Violation[] = [];
  for (const [file, edges] of graph) {
    if (isTestCode(file)) continue;
    for (const edge of edges) {
      const target = edge.target;
      if (target === undefined) continue;
      for (const [dir, entry] of entries) {
        const inside = (path: string) => path.startsWith(`${dir}/`);
        if (inside(target) && !inside(file) && target !== entry) {
          out.push(violation(file, edge, `${target} is private to ${dir}/: import its public entry ${entry}`));
        }
      }
    }
  }
  return out;
}

function testKitViolations(graph: ImportGraph): Violation[] {
  const out: Violation[] = [];
  for (const [file, edges] of graph) {
    if (isTestCode(file)) continue;
    for (const edge of edges) {
      if (edge.target !== undefined && isTestCode(edge.target)) out.push(violation(file, edge, `production code may not import test code (${edge.target})`));
    }
  }
  return out;
}

function cycleViolations(graph: ImportGraph): Violation[] {
  const out: Violation[] = [];
  for (const component of stronglyConnected(graph)) {
    const cycle = cycleThrough(graph, component);
    const first = cycle[0]!;
    const path = [first.file, ...cycle.map((step) => step.edge.target!)].join(' -> ');
    const through = cycle.some((step) => step.edge.typeOnly) ? ' (through a type-only import)' : '';
    const others = component.length > cycle.length ? `; ${component.length} files are in cycles with each other: ${component.join(', ')}` : '';
    out.push(violation(first.file, first.edge, `import cycle${through}: ${path}${others}`));
  }
  return out;
}

function violation(file: string, edge: ImportEdge, rule: string): Violation {
  return { file, line: edge.line, specifier: edge.specifier, rule };
}

function internalEdges(graph: ImportGraph, file: string): ImportEdge[] {
  return (graph.get(file) ?? []).filter((edge) => edge.target !== undefined && graph.has(edge.target));
}

/** Tarjan's algorithm: the components of more than one file, or of one that imports itself. */
function stronglyConnected(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let next = 0;
  const connect = (file: string): void => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const edge of internalEdges(graph, file)) {
      const target = edge.target!;
      if (!index.has(target)) {
        connect(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file)!, index.get(target)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    const selfImport = internalEdges(graph, file).some((edge) => edge.target === file);
    if (component.length > 1 || selfImport) components.push(component.sort());
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) connect(file);
  return components;
}

interface Step {
  file: string;
  edge: ImportEdge;
}

/** One shortest way round a component, from its first file back to it. */
function cycleThrough(graph: ImportGraph, component: string[]): Step[] {
  const members = new Set(component);
  const start = component[0]!;
  const cameFrom = new Map<string, Step>();
  const queue = [start];
  for (let i = 0; i < queue.length; i += 1) {
    const file = queue[i]!;
    for (const edge of internalEdges(graph, file)) {
      const target = edge.target!;
      if (!members.has(target) || cameFrom.has(target)) continue;
      cameFrom.set(target, { file, edge });
      if (target === start) return unwind(cameFrom, start);
      queue.push(target);
    }
  }
  throw new Error(`no cycle through ${start}`);
}

function unwind(cameFrom: Map<string, Step>, start: string): Step[] {
  const steps: Step[] = [];
  let at = start;
  do {
    const step = cameFrom.get(at)!;
    steps.unshift(step);
    at = step.file;
  } while (at !== start);
  return steps;
}
