// The import graph of ptydeck's TypeScript sources, read with the compiler's own
// parser, so that the dependency rules (dependency-rules.ts) judge every form an
// import can take: static, type-only, re-exports, `import()` in code and in types,
// and the preload's `import x = require()`. A regex would miss some of them.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

export interface ImportEdge {
  /** The module specifier as written. */
  specifier: string;
  /** 1-based line of the import, for the report. */
  line: number;
  /** `import type`, `export type` or an `import()` in a type position: gone after compilation. */
  typeOnly: boolean;
  /** The imported source file, relative to the root with `/` separators; absent for packages and built-ins. */
  target?: string;
  /** A Node built-in (`node:fs`, `path`). */
  builtin: boolean;
}

/** Every source file (relative to the root, `/` separated) with the imports it makes. */
export type ImportGraph = Map<string, ImportEdge[]>;

const SOURCE = /\.(ts|tsx|cts|mts)$/;
const SKIPPED_DIRS = new Set(['node_modules', 'dist']);
const BUILTINS = new Set(builtinModules);

/**
 * Where a bare specifier of one of the workspace's own packages lands: its public
 * entry, as the package's `exports` does once built.
 */
export type PackageEntries = Record<string, string>;

export function readImportGraph(root: string, dirs: string[], packages: PackageEntries): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const dir of dirs) {
    for (const file of sourceFiles(join(root, dir))) {
      const text = readFileSync(file, 'utf8');
      graph.set(toKey(root, file), importsOf(root, file, text, packages));
    }
  }
  return graph;
}

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (!SKIPPED_DIRS.has(name)) out.push(...sourceFiles(path));
    } else if (SOURCE.test(name) && !name.endsWith('.d.ts')) {
      out.push(path);
    }
  }
  return out;
}

function toKey(root: string, file: string): string {
  return relative(root, file).split(sep).join('/');
}

function importsOf(root: string, file: string, text: string, packages: PackageEntries): ImportEdge[] {
  const kind = file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  // No parent pointers: the walk below never reads them, and setting them costs a quarter of the parse.
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, kind);
  const edges: ImportEdge[] = [];
  const add = (literal: ts.Node, typeOnly: boolean) => {
    if (!ts.isStringLiteralLike(literal)) return;
    const specifier = literal.text;
    const line = source.getLineAndCharacterOfPosition(literal.getStart(source)).line + 1;
    const builtin = isBuiltin(specifier);
    const target = builtin ? undefined : resolveSpecifier(root, file, specifier, packages);
    edges.push({ specifier, line, typeOnly, builtin, ...(target === undefined ? {} : { target }) });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      add(node.moduleSpecifier, importIsTypeOnly(node));
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      add(node.moduleSpecifier, node.isTypeOnly);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(node.moduleReference.expression, node.isTypeOnly);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node.argument.literal, true);
    } else if (ts.isCallExpression(node) && node.arguments.length > 0) {
      const callee = node.expression;
      const dynamic = callee.kind === ts.SyntaxKind.ImportKeyword;
      const required = ts.isIdentifier(callee) && callee.text === 'require';
      if (dynamic || required) add(node.arguments[0]!, false);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return edges;
}

function importIsTypeOnly(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (!clause) return false; // a side-effect import runs the module
  if (clause.isTypeOnly) return true;
  const bindings = clause.namedBindings;
  // `import { type A, type B }` with nothing else is erased like `import type`.
  return clause.name === undefined && bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((element) => element.isTypeOnly);
}

function isBuiltin(specifier: string): boolean {
  return specifier.startsWith('node:') || BUILTINS.has(specifier.split('/')[0]!);
}

// NodeNext style: a relative import names the emitted file (`./x.js`), which is
// `./x.ts` (or .tsx, .cts, .mts) in the source tree.
const EMITTED_TO_SOURCE: Array<[RegExp, string[]]> = [
  [/\.js$/, ['.ts', '.tsx']],
  [/\.jsx$/, ['.tsx']],
  [/\.cjs$/, ['.cts']],
  [/\.mjs$/, ['.mts']],
];

function resolveSpecifier(root: string, file: string, specifier: string, packages: PackageEntries): string | undefined {
  const entry = packages[specifier];
  if (entry !== undefined) return entry;
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dirname(file), specifier);
  const candidates = [base];
  for (const [emitted, sources] of EMITTED_TO_SOURCE) {
    if (emitted.test(base)) candidates.push(...sources.map((ext) => base.replace(emitted, ext)));
  }
  candidates.push(`${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx'));
  const found = candidates.find((candidate) => SOURCE.test(candidate) && existsSync(candidate) && statSync(candidate).isFile());
  return found === undefined ? undefined : toKey(root, found);
}
