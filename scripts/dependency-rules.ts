// ptydeck's layering, written down once and checked by `npm test`
// (dependency-rules.test.ts): the contract is runtime-neutral and below
// everything, the app is DOM only, the core never reaches up into the app or
// Electron, the sandboxed preload holds nothing of the core, a folder with a
// public entry (an index.ts) is entered only through it, production code never
// loads a test kit, and no module imports itself round a cycle, type-only
// imports included, since a type cycle is the first step of a value cycle and
// blurs which module is below which. Within the core, folders stand in a stated
// order (CORE_ORDER) and none imports a folder above it, so no two folders
// import each other.
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

/** Folders of one package in the order they stand: each may import those below it, never one above. */
export interface FolderOrder {
  /** The package's sources, relative to the root, `/` separated, no trailing slash. */
  dir: string;
  /** Its folders, bottom first. A file directly in `dir` (the package's entry) stands above them all. */
  folders: string[];
  /**
   * Imports of a folder above that are known and on their way out, as
   * `from -> to` (files relative to `dir`), each with the reason it still stands.
   */
  pending?: Record<string, string>;
}

/**
 * The core's folders, bottom to top. A new folder takes its place in this
 * list (the check names a folder that has none): below whatever it imports,
 * above whatever imports it.
 */
export const CORE_ORDER: FolderOrder = {
  dir: 'packages/core/src',
  folders: [
    // What a terminal can do (colours, width): reads only its own process's descriptors.
    'capability',
    // The escape-sequence scanner and UTF-8 boundaries of terminal output.
    'vt',
    // The OS readers: /proc, the TCP tables, waiting on processes that are not our children.
    'proc',
    // What the host and its clients share: where a host is found, how it proves itself, its lock, paths,
    // headers and environment names.
    'common',
    // Remote hosts over ssh: the remotes' list, how a remote's ptydeck is run, the panel's links to remotes.
    'remote',
    // The PTYs: spawn, read, write, end, and the processes a session leaves.
    'pty',
    // Agents' shells in bubblewrap.
    'sandbox',
    // What is learned about sessions from outside the PTY: their processes and ports, prompts, shell state.
    'facts',
    // The session store, screens, the agent terminal tool, chats with ACP agents.
    'persist',
    'screen',
    'terminal-tool',
    // Every session's commands, from the shells' marks; the agent's history tool over them.
    'timeline',
    'chats',
    // The local server: panel WebSocket, MCP endpoint.
    'server',
    // The host process around the server: its one composition root.
    'host',
    // What runs in a client process: finding or starting the host, the stdio bridge, ls, attach, ...
    'client',
    // The ptydeck command line.
    'cli',
    // The test kits, which start whatever a test needs (test code is exempt from the order anyway).
    'testing',
  ],
  pending: {},
};

export interface Violation {
  file: string;
  line: number;
  specifier: string;
  rule: string;
}

export function formatViolation(violation: Violation): string {
  const where = `${violation.file}:${violation.line}`;
  return violation.specifier === '' ? `${where}: ${violation.rule}` : `${where}: import '${violation.specifier}': ${violation.rule}`;
}

export function checkDependencyRules(graph: ImportGraph, layers: Layer[] = LAYERS, order: FolderOrder = CORE_ORDER, hostAndClients: FolderRule[] = HOST_AND_CLIENTS): Violation[] {
  return [
    ...layerViolations(graph, layers),
    ...folderOrderViolations(graph, order),
    ...folderViolations(graph, hostAndClients),
    ...entryViolations(graph),
    ...testKitViolations(graph),
    ...cycleViolations(graph),
  ];
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
const HOST_ONLY = ['pty', 'facts', 'screen', 'terminal-tool', 'timeline', 'chats', 'persist', 'server', 'host'].map((dir) => `${CORE}/${dir}`);

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

/** The folder of `order` a file is in; '' for a file directly in its dir, undefined for one outside. */
function folderOf(file: string, order: FolderOrder): string | undefined {
  if (!file.startsWith(`${order.dir}/`)) return undefined;
  const rest = file.slice(order.dir.length + 1);
  const slash = rest.indexOf('/');
  return slash < 0 ? '' : rest.slice(0, slash);
}

function folderOrderViolations(graph: ImportGraph, order: FolderOrder): Violation[] {
  const out: Violation[] = [];
  const rank = (folder: string) => (folder === '' ? order.folders.length : order.folders.indexOf(folder));
  const relative = (file: string) => file.slice(order.dir.length + 1);
  const unplaced = new Set<string>();
  const pendingSeen = new Set<string>();
  for (const [file, edges] of [...graph].sort(([a], [b]) => a.localeCompare(b))) {
    const folder = folderOf(file, order);
    if (folder === undefined) continue;
    if (rank(folder) < 0) {
      if (!unplaced.has(folder)) out.push({ file, line: 1, specifier: '', rule: `folder ${order.dir}/${folder}/ has no place in the folder order: add it to the list, above what it imports` });
      unplaced.add(folder);
      continue;
    }
    // Tests and their kits look inside what they test, wherever it stands; production code reaching a kit is the kit rule's.
    if (isTestCode(file)) continue;
    for (const edge of edges) {
      const target = edge.target === undefined ? undefined : folderOf(edge.target, order);
      if (target === undefined || target === folder || rank(target) < rank(folder) || isTestCode(edge.target!)) continue;
      const pending = `${relative(file)} -> ${relative(edge.target!)}`;
      if (order.pending?.[pending] !== undefined) {
        pendingSeen.add(pending);
        continue;
      }
      out.push(violation(file, edge, `${folder}/ may not import ${target === '' ? 'the package entry' : `${target}/`}, which stands above it in the folder order (${edge.target})`));
    }
  }
  // A pending import that is gone is struck off, so the list only shrinks.
  for (const pending of Object.keys(order.pending ?? {})) {
    if (!pendingSeen.has(pending)) out.push({ file: `${order.dir}/${pending.split(' -> ')[0]}`, line: 1, specifier: '', rule: `the pending import ${pending} is gone: remove it from the folder order's pending list` });
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
