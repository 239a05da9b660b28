import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { readImportGraph, type ImportGraph } from './dependency-graph.js';
import { checkDependencyRules, CORE_ORDER, formatViolation, LAYERS, PACKAGE_ENTRIES, SOURCE_DIRS, type FolderOrder } from './dependency-rules.js';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The repository's own import graph: parsing every module takes seconds, so the tests that read it share one reading. */
let repositoryGraph: ImportGraph | undefined;
function readRepositoryGraph(): ImportGraph {
  repositoryGraph ??= readImportGraph(root, SOURCE_DIRS, PACKAGE_ENTRIES);
  return repositoryGraph;
}

/** The fixtures' core: two folders and the kits. */
const FIXTURE_ORDER: FolderOrder = { dir: 'packages/core/src', folders: ['agent', 'server', 'testing'] };

function violationsIn(dir: string, order: FolderOrder = FIXTURE_ORDER): string[] {
  return checkDependencyRules(readImportGraph(dir, SOURCE_DIRS, PACKAGE_ENTRIES), LAYERS, order).map(formatViolation);
}

describe('the dependency rules', () => {
  it('hold for every module under packages/ and electron/', () => {
    const graph = readRepositoryGraph();
    // A reader that found nothing would pass any rule.
    expect(graph.has('packages/core/src/pty/pty-service.ts')).toBe(true);
    expect(graph.has('electron/src/preload/preload.cts')).toBe(true);
    expect(graph.get('packages/core/src/index.ts')?.some((edge) => edge.target === 'packages/core/src/terminal-tool/index.ts')).toBe(true);
    expect(checkDependencyRules(graph).map(formatViolation)).toEqual([]);
  });
});

/** A tree that keeps every rule; the test of each rule plants a violation in it. */
const LAWFUL: Record<string, string> = {
  'packages/contract/src/index.ts': 'export const x = 1;\n',
  'packages/app/src/view.tsx': "import { x } from '@ptydeck/contract';\nexport const view = x;\n",
  'packages/core/src/index.ts': "export * from './agent/index.js';\n",
  'packages/core/src/agent/index.ts': "export { tool } from './tool.js';\n",
  'packages/core/src/agent/tool.ts': "import { readFileSync } from 'node:fs';\nexport const tool = readFileSync;\n",
  'packages/core/src/testing/kit.ts': 'export const kit = 1;\n',
  'packages/core/src/server/ok.ts': "import { tool } from '../agent/index.js';\nexport const ok = tool;\n",
  // Tests look inside what they test, use the kits and run in Node.
  'packages/core/src/server/ok.test.ts': "import { tool } from '../agent/tool.js';\nimport { kit } from '../testing/kit.js';\nimport 'node:fs';\n",
  'electron/src/main/api.ts': 'export interface Api { a: 1 }\n',
  'electron/src/preload/preload.cts': "import electron = require('electron');\nimport type { Api } from '../main/api.js';\n",
};

describe('the dependency checker', () => {
  let fixture: string | undefined;
  afterEach(() => {
    if (fixture) rmSync(fixture, { recursive: true, force: true });
    fixture = undefined;
  });

  function plant(files: Record<string, string>): string {
    fixture = mkdtempSync(join(tmpdir(), 'ptydeck-dependency-rules-'));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(fixture, path)), { recursive: true });
      writeFileSync(join(fixture, path), text);
    }
    return fixture;
  }

  it('names each planted violation with its file, line and import', () => {
    const dir = plant({
      ...LAWFUL,
      'packages/contract/src/index.ts': "import { readFileSync } from 'node:fs';\nexport const x = readFileSync;\n",
      'packages/app/src/bad.tsx': "import { createPtyService } from '@ptydeck/core';\nimport type { Api } from '../../../electron/src/main/api.js';\n",
      'packages/core/src/agent/tool.ts': "import { p } from '../server/private.js';\nexport const tool = p;\n",
      'packages/core/src/server/private.ts': "import { tool } from '../agent/tool.js';\nexport const p = tool;\n",
      'packages/core/src/server/uses-kit.ts': "import { kit } from '../testing/kit.js';\nexport const y = kit;\n",
      'packages/core/src/server/reaches-app.ts': "export { view } from '../../../app/src/view.js';\n",
      'electron/src/preload/preload.cts': "import electron = require('electron');\ntype T = typeof import('@ptydeck/core');\n",
    });
    expect(violationsIn(dir)).toEqual([
      "packages/app/src/bad.tsx:1: import '@ptydeck/core': app may not import core (packages/core/src/index.ts)",
      "packages/app/src/bad.tsx:2: import '../../../electron/src/main/api.js': app may not import electron main (electron/src/main/api.ts)",
      "packages/contract/src/index.ts:1: import 'node:fs': contract may not import Node built-ins",
      "packages/core/src/server/reaches-app.ts:1: import '../../../app/src/view.js': core may not import app (packages/app/src/view.tsx)",
      "electron/src/preload/preload.cts:2: import '@ptydeck/core': electron preload may not import core (packages/core/src/index.ts)",
      "packages/core/src/agent/tool.ts:1: import '../server/private.js': agent/ may not import server/, which stands above it in the folder order (packages/core/src/server/private.ts)",
      "packages/core/src/server/private.ts:1: import '../agent/tool.js': packages/core/src/agent/tool.ts is private to packages/core/src/agent/: import its public entry packages/core/src/agent/index.ts",
      "packages/core/src/server/uses-kit.ts:1: import '../testing/kit.js': production code may not import test code (packages/core/src/testing/kit.ts)",
      "packages/core/src/agent/tool.ts:1: import '../server/private.js': import cycle: packages/core/src/agent/tool.ts -> packages/core/src/server/private.ts -> packages/core/src/agent/tool.ts",
    ]);
  });

  it('counts a cycle that only a type-only import closes', () => {
    const dir = plant({
      'packages/app/src/a.ts': "import type { B } from './b.js';\nexport type A = B;\nexport const a = 1;\n",
      'packages/app/src/b.ts': "import { a } from './a.js';\nexport type B = typeof a;\n",
    });
    expect(violationsIn(dir)).toEqual([
      "packages/app/src/a.ts:1: import './b.js': import cycle (through a type-only import): packages/app/src/a.ts -> packages/app/src/b.ts -> packages/app/src/a.ts",
    ]);
  });

  it('keeps the host out of clients: a client or a shared module importing host code is named, a test of either is not', () => {
    // Paths under packages/core/src/.
    const core: Array<[string, string]> = [
      ['common/names.ts', 'export const NAME = 1;\n'],
      ['client/ls.ts', "import { NAME } from '../common/names.js';\nimport { ok } from '../server/ok.js';\nexport const ls = [NAME, ok];\n"],
      ['client/ls.test.ts', "import { ok } from '../server/ok.js';\nexport const t = ok;\n"],
      ['common/reaches.ts', "import { ls } from '../client/ls.js';\nexport const r = ls;\n"],
      ['host/root.ts', "import { ls } from '../client/ls.js';\nimport { NAME } from '../common/names.js';\nexport const root = [ls, NAME];\n"],
    ];
    const dir = plant({ ...LAWFUL, ...Object.fromEntries(core.map(([path, text]) => [`packages/core/src/${path}`, text])) });
    // Every folder placed; what the folder order says of these imports is its own test's (above).
    const placed: FolderOrder = { dir: 'packages/core/src', folders: ['common', 'agent', 'server', 'host', 'client', 'testing'] };
    expect(violationsIn(dir, placed).filter((line) => !line.includes('in the folder order'))).toEqual([
      "packages/core/src/client/ls.ts:2: import '../server/ok.js': packages/core/src/client/ may not import packages/core/src/server/ (packages/core/src/server/ok.ts)",
      "packages/core/src/common/reaches.ts:1: import '../client/ls.js': packages/core/src/common/ may not import packages/core/src/client/ (packages/core/src/client/ls.ts)",
      "packages/core/src/host/root.ts:1: import '../client/ls.js': packages/core/src/host/ may not import packages/core/src/client/ (packages/core/src/client/ls.ts)",
    ]);
  });

  it('keeps every core folder below the folders above it, and names a folder that has no place', () => {
    const dir = plant({
      ...LAWFUL,
      // agent/ stands below server/: reaching up is refused even without a cycle, a type-only import too.
      'packages/core/src/agent/reach.ts': "import type { ok } from '../server/ok.js';\nexport type R = typeof ok;\n",
      'packages/core/src/agent/entry.ts': "import '../index.js';\n",
      'packages/core/src/extra/thing.ts': 'export const thing = 1;\n',
    });
    expect(violationsIn(dir)).toEqual([
      "packages/core/src/agent/entry.ts:1: import '../index.js': agent/ may not import the package entry, which stands above it in the folder order (packages/core/src/index.ts)",
      "packages/core/src/agent/reach.ts:1: import '../server/ok.js': agent/ may not import server/, which stands above it in the folder order (packages/core/src/server/ok.ts)",
      'packages/core/src/extra/thing.ts:1: folder packages/core/src/extra/ has no place in the folder order: add it to the list, above what it imports',
    ]);
  });

  it('lets a pending import stand until it is gone, then asks for it to be struck off', () => {
    const upward = { ...LAWFUL, 'packages/core/src/agent/reach.ts': "import { ok } from '../server/ok.js';\nexport const r = ok;\n" };
    const order = (pending: Record<string, string>): FolderOrder => ({ ...FIXTURE_ORDER, pending });
    expect(violationsIn(plant(upward), order({ 'agent/reach.ts -> server/ok.ts': 'moving' }))).toEqual([]);
    rmSync(fixture!, { recursive: true, force: true });
    expect(violationsIn(plant(LAWFUL), order({ 'agent/reach.ts -> server/ok.ts': 'moving' }))).toEqual([
      'packages/core/src/agent/reach.ts:1: the pending import agent/reach.ts -> server/ok.ts is gone: remove it from the folder order\'s pending list',
    ]);
  });

  it("places every folder of the core's sources in its order", () => {
    const folders = new Set([...readRepositoryGraph().keys()].flatMap((file) => /^packages\/core\/src\/([^/]+)\//.exec(file)?.[1] ?? []));
    expect([...folders].filter((folder) => !CORE_ORDER.folders.includes(folder))).toEqual([]);
    expect(CORE_ORDER.folders.slice(0, 6)).toEqual(['capability', 'vt', 'proc', 'common', 'remote', 'pty']);
  });

  it('finds nothing in a tree that keeps the rules', () => {
    expect(violationsIn(plant(LAWFUL))).toEqual([]);
  });
});
