/**
 * What a repository's git config names in the project for git to run or read: the hooks directory
 * (`core.hooksPath`: husky sets `.husky/_`, whose stubs run `.husky/<hook>`; others a `.githooks`)
 * and included config files (`include.path`, `includeIf.*.path`: a config shared in the project).
 * A read-only `.git/hooks` and `.git/config` stop nothing when the config sends git to a file in
 * the workspace: a sandboxed shell wrote `.husky/pre-commit`, which the developer's next commit ran,
 * and an included file's `core.fsmonitor`, which their next `git status` ran.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { listingOf } from './listings.js';

/**
 * A config is a few hundred bytes, but git reads all of one, and a repository's `[branch]` sections grow it: with
 * 64 KiB, an include added after 1200 branches was not followed. Anything past this is not looked at.
 */
const MAX_CONFIG_BYTES = 4 * 1024 * 1024;
/** Included files followed in depth, as deep as git follows them (its MAX_INCLUDE_DEPTH): with 4, a fifth and deeper stayed writable. */
const MAX_INCLUDE_DEPTH = 10;

/**
 * What reading configs may cost one sandbox policy, all its walks together: configs opened and bytes read. A policy is
 * made synchronously on the host's loop at every shell's start, and the files a walk opens are not bounded by the depth
 * alone: a config a sandboxed shell made in a project of its own (`git init evil`), including `l1/c` to `l4/c` where
 * each `lN` links to `.`, names 4^10 distinct paths of one file, and the next shell's start held the host's loop for
 * minutes (3 links: 32 s). Past either, `exceeded`, and the caller fences the workspace whole.
 */
export interface ConfigBudget {
  files: number;
  bytes: number;
  exceeded: boolean;
}

/** A policy's budget: a thousand configs (500 projects' config and config.worktree) and their includes, 32 MiB. */
export function configBudget(files = 4096, bytes = 32 * 1024 * 1024): ConfigBudget {
  return { files, bytes, exceeded: false };
}

export interface GitConfigNames {
  /** Hooks directories, as the config says them (absolute, `~/`, or relative to the worktree). */
  hooksPaths: string[];
  /** Included files, resolved against the including file's directory. */
  includes: string[];
  /** `core.worktree`, as written: where a submodule's git directory says its working tree is (relative to that directory). */
  worktrees: string[];
  /** `submodule.<name>.path`, as written: in a `.gitmodules`, where each submodule's working tree is (relative to the project). */
  modulePaths: string[];
}

/**
 * The paths git takes from `config` (a repository's `.git/config`) and what it includes, for the
 * worktree `worktree`: each hooks directory (and, for husky's `_`, the directory above it, whose
 * hooks the stubs run) and each included file. Unreadable files name nothing. `includes`, where given, gets each
 * included file's path as git opens it (not normalized); `hooks` each hooks directory.
 */
export function namedByGitConfig(config: string, worktree: string, home: string, budget: ConfigBudget = configBudget(), includes?: string[], hooks?: string[]): string[] {
  const found: string[] = [];
  walkConfigs(config, home, budget, (names) => {
    for (const raw of names.hooksPaths) {
      const dir = expand(raw, worktree, home);
      found.push(dir);
      hooks?.push(dir);
      if (basename(dir) === '_') found.push(dirname(dir));
    }
  }, (included) => {
    found.push(resolve(included));
    // As git opens it (walkConfigs), for the caller to check what lies before a `..` and whether it exists.
    includes?.push(included);
  });
  return found;
}

/**
 * Reads `config` and, in depth, each file it includes: `names` gets what each one says, `included` each included file,
 * resolved against the directory of the file that includes it.
 */
function walkConfigs(config: string, home: string, budget: ConfigBudget, names: (found: GitConfigNames) => void, included: (file: string) => void): void {
  const seen = new Set<string>();
  const visit = (file: string, depth: number) => {
    if (budget.exceeded || depth > MAX_INCLUDE_DEPTH || seen.has(file)) return;
    seen.add(file);
    if (--budget.files < 0) {
      budget.exceeded = true;
      return;
    }
    const text = readSmall(file);
    budget.bytes -= text?.length ?? 0;
    if (budget.bytes < 0) {
      budget.exceeded = true;
      return;
    }
    const found = parseGitConfig(text);
    names(found);
    for (const raw of found.includes) {
      // As git opens it: the including file's directory and the value joined, not normalized (`l1/../inc` is where `l1`
      // leads now, and its parent; policy.ts pins what lies before each `..`).
      const next = expandAsGit(raw, dirname(file), home);
      included(next);
      visit(next, depth + 1);
    }
  };
  visit(config, 0);
}

/** Directories under a repository's `.git/modules` looked at, at most: a policy is made at every shell's start. */
const MAX_MODULE_DIRS = 256;

export interface Submodules {
  /**
   * Every directory from `.git/modules` down to each submodule's git directory, parents first: each is
   * bound onto itself, since a directory that only holds mount points can still be renamed and replaced.
   */
  pinned: string[];
  /** Each submodule's git directory (`.git/modules/<name>`, nested ones in its own `modules`). */
  gitDirs: string[];
  /**
   * `.git/modules` itself, where it holds more directories than are looked at: whatever lies past them keeps its
   * config and hooks writable otherwise, and a shell makes directories listed first at will (301 empty ones left a
   * submodule's config to the next shell: sandboxed-shells.test.ts). Read-only whole, which only submodules' own
   * commits and updates inside need.
   */
  readOnly: string[];
}

/**
 * The git directories of the submodules a repository already has: `.git/modules/<name>` (a name may
 * hold slashes, one directory each), and theirs in turn. Each keeps its own config and hooks, which the
 * superproject's `git status` runs as it looks into each submodule (a `core.fsmonitor` written in
 * `.git/modules/<name>/config` ran there). Links are not followed: what is a link was not made by git.
 */
export function submodulesOf(gitDir: string): Submodules {
  const found: Submodules = { pinned: [], gitDirs: [], readOnly: [] };
  let budget = MAX_MODULE_DIRS;
  let overflowed = false;
  const visit = (dir: string, depth: number) => {
    if (budget-- <= 0 || depth > 16) {
      overflowed = true;
      return;
    }
    const entries = listingOf(dir);
    if (entries === null) return;
    found.pinned.push(dir);
    // A git directory holds HEAD; a directory of a name with slashes does not.
    if (dir !== join(gitDir, 'modules') && entries.some((entry) => entry.name === 'HEAD' && entry.isFile())) {
      found.gitDirs.push(dir);
      if (entries.some((entry) => entry.name === 'modules' && entry.isDirectory())) visit(join(dir, 'modules'), depth + 1);
      return;
    }
    for (const entry of entries) if (entry.isDirectory()) visit(join(dir, entry.name), depth + 1);
  };
  const modules = join(gitDir, 'modules');
  visit(modules, 0);
  if (overflowed) return { pinned: [], gitDirs: [], readOnly: [modules] };
  // A modules directory with no submodule in it needs no pin.
  return found.gitDirs.length === 0 ? { pinned: [], gitDirs: [], readOnly: [] } : found;
}

/**
 * The working tree a submodule's git directory serves, as its config's `core.worktree` says (`git submodule add` writes
 * it, relative to the git directory: `../../../libs/lib`), the last one read as git takes it; null where it names none.
 * Its `.git` file (`gitdir: ../../.git/modules/libs/lib`) is what git follows into the submodule from the superproject.
 */
export function submoduleWorktree(gitDir: string): string | null {
  const named = readGitConfig(join(gitDir, 'config')).worktrees.at(-1);
  return named === undefined ? null : resolve(gitDir, named);
}

/** Paths taken from one `.gitmodules`, at most: one more than the fence's cap on submodules' trees (tool-fence.ts). */
export const MAX_GITMODULES_PATHS = 257;

/**
 * The working trees a project's `.gitmodules` names (`submodule.<name>.path`), resolved in the project; those that
 * would lie outside it (git refuses them) left out. A clone without `--recurse-submodules`, or `git submodule deinit`,
 * leaves each an empty directory, and a `.git` made there is what the superproject's `git status` follows.
 */
export function gitmodulesTrees(project: string, budget: ConfigBudget): string[] {
  const file = join(project, '.gitmodules');
  // Charged to the policy's budget as a config is: a shell's 500 projects, each with a `.gitmodules` of 4 MiB, would
  // otherwise hold the host's loop at the next shell's start.
  if (budget.exceeded || !present(file)) return [];
  const text = readSmall(file);
  budget.bytes -= text?.length ?? 0;
  if (--budget.files < 0 || budget.bytes < 0) {
    budget.exceeded = true;
    return [];
  }
  // Past the caller's cap (tool-fence.ts) the count alone matters: the rest are not resolved.
  return parseGitConfig(text)
    .modulePaths.slice(0, MAX_GITMODULES_PATHS)
    .map((path) => resolve(project, path))
    .filter((tree) => tree !== project && tree.startsWith(project + '/'));
}

/** Linked worktrees' directories under one repository's `.git/worktrees` looked at, at most. */
const MAX_LINKED_WORKTREES = 256;

/**
 * The directories of a repository's linked worktrees (`.git/worktrees/<name>`, as `git worktree add` makes them), links
 * included as they are (the caller fences a link whole); null past MAX_LINKED_WORKTREES. Each holds what git reads when
 * the developer runs it in that worktree: its `commondir` (the repository whose config and hooks git then uses) and,
 * where extensions.worktreeConfig is on, its `config.worktree`; a sandboxed shell wrote a `core.fsmonitor` there that the
 * developer's next `git status` in the worktree ran.
 */
export function linkedWorktreesOf(gitDir: string): string[] | null {
  const dir = join(gitDir, 'worktrees');
  const entries = listingOf(dir);
  if (entries === null) return [];
  const found = entries.filter((entry) => entry.isDirectory() || entry.isSymbolicLink()).map((entry) => join(dir, entry.name));
  return found.length > MAX_LINKED_WORKTREES ? null : found;
}

/**
 * Every config file git may read as the user's own or the system's: ~/.gitconfig, `$XDG_CONFIG_HOME/git/config`
 * (before, only ~/.config/git/config was read: a developer whose XDG_CONFIG_HOME is elsewhere had its `core.hooksPath =
 * .githooks` missed, and a sandboxed shell wrote the hook their next commit ran), the files GIT_CONFIG_GLOBAL and
 * GIT_CONFIG_SYSTEM name, and /etc/gitconfig. `env` is the host's, which the developer's shells share. Each is read
 * whether or not git would pick it: a file too many only fences more.
 */
function globalConfigFiles(home: string, env: NodeJS.ProcessEnv): string[] {
  const files = [join(home, '.gitconfig'), join(home, '.config', 'git', 'config'), '/etc/gitconfig'];
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg && isAbsolute(xdg)) files.push(join(xdg, 'git', 'config'));
  for (const named of [env.GIT_CONFIG_GLOBAL, env.GIT_CONFIG_SYSTEM]) if (named && isAbsolute(named)) files.push(named);
  return [...new Set(files)];
}

/** The user's own and the system's git configs' hooks directories (globalConfigFiles), as written. */
export function globalHooksPaths(home: string, env: NodeJS.ProcessEnv = process.env): string[] {
  return globalConfigFiles(home, env).flatMap((file) => readGitConfig(file).hooksPaths);
}

/**
 * The files the user's own and the system's git configs include, followed in depth: one in a project (`[includeIf
 * "gitdir:~/work/app/"] path = ~/work/app/.gitconfig.local`) is config git reads there, and a sandboxed shell
 * appended a `core.fsmonitor` to it that the developer's next `git status` ran.
 */
export function globalIncludes(home: string, env: NodeJS.ProcessEnv = process.env, budget: ConfigBudget = configBudget()): string[] {
  const found: string[] = [];
  for (const file of globalConfigFiles(home, env)) walkConfigs(file, home, budget, () => {}, (included) => found.push(included));
  return found;
}

/** An include's path as git opens it: `~/` expanded, a relative one joined to the including file's directory, no `..` undone. */
function expandAsGit(path: string, base: string, home: string): string {
  if (path === '~' || path.startsWith('~/')) return join(home, path.slice(1));
  return isAbsolute(path) ? path : `${base}/${path}`;
}

/**
 * Whether `config` (a repository's `.git/config`) turns `extensions.worktreeConfig` on: git then reads `config.worktree`
 * beside it (and in each linked worktree's directory) as config. Git reads extensions from this file alone, includes not followed.
 */
export function worktreeConfigOn(config: string): boolean {
  let section = '';
  for (const line of (readSmall(config) ?? '').split('\n')) {
    const header = /^\s*\[\s*([A-Za-z0-9.-]+)/.exec(line);
    if (header) section = header[1]!.toLowerCase();
    // A key alone (`worktreeConfig`) is true to git. Any true value counts, a later false too: a fence too many only fences more.
    const entry = /^\s*(?:\[[^\]]*\]\s*)?([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(line);
    if (section === 'extensions' && entry && entry[1]!.toLowerCase() === 'worktreeconfig') {
      if (entry[2] === undefined || /^(true|yes|on|1)$/i.test(configValue(entry[2]))) return true;
    }
  }
  return false;
}

function expand(path: string, base: string, home: string): string {
  if (path === '~' || path.startsWith('~/')) return join(home, path.slice(1));
  return isAbsolute(path) ? path : join(base, path);
}

/** `core.hooksPath` and include paths in one config file; nothing where it cannot be read. */
export function readGitConfig(file: string): GitConfigNames {
  return parseGitConfig(readSmall(file));
}

function parseGitConfig(text: string | undefined): GitConfigNames {
  const names: GitConfigNames = { hooksPaths: [], includes: [], worktrees: [], modulePaths: [] };
  if (text === undefined) return names;
  let section = '';
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index++) {
    let line = lines[index]!.trim();
    const header = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"(?:[^"\\]|\\.)*")?\s*\]/.exec(line);
    if (header) {
      // `[includeIf "gitdir:..."]` and the old `[section.sub]` both name their section first.
      section = header[1]!.toLowerCase().split('.')[0]!;
      line = line.slice(header[0].length).trim();
      if (line === '') continue;
    }
    const entry = /^([A-Za-z][A-Za-z0-9-]*)\s*=\s*(.*)$/.exec(line);
    if (!entry) continue;
    const key = entry[1]!.toLowerCase();
    // A value that ends in a backslash goes on with the next line (`path = ../con\` then `fig.inc` is ../config.inc to
    // git): read as one, or the fence would follow a path git never reads and leave the one it does writable.
    let raw = entry[2]!;
    while (continues(raw) && index + 1 < lines.length) raw = raw.slice(0, -1) + lines[++index]!.replace(/\r$/, '');
    const value = configValue(raw);
    if (value === '') continue;
    if (section === 'core' && key === 'hookspath') names.hooksPaths.push(value);
    else if (section === 'core' && key === 'worktree') names.worktrees.push(value);
    else if ((section === 'include' || section === 'includeif') && key === 'path') names.includes.push(value);
    else if (section === 'submodule' && key === 'path') names.modulePaths.push(value);
  }
  return names;
}

/** Whether a value's text ends in a backslash that escapes the newline: not an escaped one (`\\`), nor in a comment. */
function continues(raw: string): boolean {
  let quoted = false;
  for (let i = 0; i < raw.length; i++) {
    const char = raw[i]!;
    if (char === '"') quoted = !quoted;
    else if (char === '\\') {
      if (i === raw.length - 1) return true;
      i++;
    } else if (!quoted && (char === '#' || char === ';')) return false;
  }
  return false;
}

/** A value as git reads it: quotes joined, `\` escapes undone, a `#` or `;` outside quotes ends it. */
function configValue(raw: string): string {
  let out = '';
  let quoted = false;
  for (let i = 0; i < raw.length; i++) {
    const char = raw[i]!;
    if (char === '"') quoted = !quoted;
    else if (char === '\\' && i + 1 < raw.length) {
      const next = raw[++i]!;
      out += next === 'n' ? '\n' : next === 't' ? '\t' : next === 'b' ? '\b' : next;
    } else if (!quoted && (char === '#' || char === ';')) break;
    else out += char;
  }
  return quoted ? out : out.trim();
}

/** A file's first MAX_CONFIG_BYTES, opened without blocking (a FIFO planted under the name reads as nothing). */
export function readSmall(file: string): string | undefined {
  // Most of these files do not exist (~/.gitconfig, ~/.config/git/config, at each shell's start): asked without the
  // error a failed open throws, which cost more than the read. One made in between is read at the next shell's start.
  if (!present(file)) return undefined;
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    // A config is read at every shell's start, for each repository in the workspace: a buffer its size, not the cap's.
    const buffer = Buffer.alloc(Math.min(fstatSync(fd).size, MAX_CONFIG_BYTES));
    const length = buffer.length === 0 ? 0 : readSync(fd, buffer, 0, buffer.length, null);
    return buffer.toString('utf8', 0, length);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

function present(file: string): boolean {
  try {
    return lstatSync(file, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}
