// What the developer's own tools run from a project (RUN_BY_YOUR_TOOLS, what git's configs name, linked worktrees,
// submodules): which paths a sandboxed shell's writable workspace keeps read-only or pinned, or why it is read-only whole.
import { closeSync, constants, lstatSync, mkdirSync, openSync, writeSync, type Dirent } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { MAX_READ_ONLY_WHY_CHARS } from '@ptydeck/contract';
import { readUntrustedFileSync } from '../common/untrusted-read.js';
import { configBudget, gitmodulesTrees, MAX_GITMODULES_PATHS, globalHooksPaths, globalIncludes, linkedWorktreesOf, namedByGitConfig, submoduleWorktree, submodulesOf, worktreeConfigOn } from './git-named.js';
import { namedByEnvrc } from './direnv-named.js';
import { direntsOf, exists, existingReal, realAsFarAsItExists, unique } from './real-paths.js';
import { isWithin } from './within.js';

/**
 * What the developer's own tools run, unasked, from a project: git's hooks and config (a commit runs the
 * hooks; the config names an fsmonitor, a pager, an ssh command; `config.worktree` is read as config where
 * extensions.worktreeConfig is on, as `git sparse-checkout` sets it), direnv's `.envrc` (run on `cd`), an
 * editor's workspace settings and tasks (`.vscode`, `.idea`), an agent's own settings, hooks and MCP
 * servers (`.claude`, `.mcp.json`, Cursor's `.cursor/hooks.json` and `mcp.json`, Gemini CLI's
 * `.gemini/settings.json`: each names commands the tool runs), a dev container's `initializeCommand` (VS Code runs it on
 * the developer's machine), mise's config (trusted by its path, its hooks and env scripts run as the developer enters the
 * directory). A writable workspace holds them (in itself and in each directory directly in
 * it: a folder of projects): each that exists is read-only inside, as sandbox-runtime's mandatory deny
 * list keeps them, so code the shell runs (a package's install script) cannot plant what runs outside.
 */
export const RUN_BY_YOUR_TOOLS = ['.git/hooks', '.git/config', '.git/config.worktree', '.envrc', '.vscode', '.idea', '.claude', '.mcp.json', '.cursor', '.gemini', '.devcontainer', 'mise.toml', '.mise.toml'] as const;

/**
 * Directories in a workspace looked into for RUN_BY_YOUR_TOOLS, at most: a policy is made at every shell's start, and
 * each one found is a bind. A workspace with more is not writable (sandboxPolicy).
 */
export const MAX_PROJECTS_LOOKED_AT = 500;
/** Links followed in the read-only directories (a hook linked into the project), at most; past it the workspace is read-only. */
const MAX_FENCED_LINKS = 256;
/** Directories an `.envrc` puts on PATH that are fenced, at most; past it the workspace is read-only. */
const MAX_PATH_DIRS = 64;
/** Submodules' working trees fenced (empty ones, and those holding their git directory), at most; past it the workspace is read-only. */
const MAX_SUBMODULE_TREES = MAX_GITMODULES_PATHS - 1;
/** Directories pinned above read-only paths (directoriesAbove), at most; past it the workspace is read-only. */
const MAX_PINNED_ABOVE = 256;

/** What runByYourTools fences: the read-only paths, the pinned directories, and why the workspace is read-only whole when it is. */
export interface Fence {
  readOnly: string[];
  pinned: string[];
  readOnlyWhy?: string;
}

function wholly(workspace: string, why: string): Fence {
  return { readOnly: [workspace], pinned: [], readOnlyWhy: shortened(why) };
}

/**
 * `why` within what a session's info may carry: it may name a path a shell chose (an include's in a repository of its
 * own, any length git reads), and a longer one failed the next terminal_create's result, after its shell had started.
 * The middle goes: the path's start and the reason at the end stay.
 */
function shortened(why: string): string {
  if (why.length <= MAX_READ_ONLY_WHY_CHARS) return why;
  const half = Math.floor((MAX_READ_ONLY_WHY_CHARS - 1) / 2);
  return `${why.slice(0, half)}…${why.slice(why.length - half)}`;
}

/**
 * RUN_BY_YOUR_TOOLS that exist in the writable workspace (none or one) and in each directory directly in
 * it, made real, inside it; with each `.git` there: pinned when a directory, read-only when a file (a
 * worktree's pointer to its repository).
 */
export function runByYourTools(writable: string[], entries: readonly Dirent[], home: string): Fence {
  const workspace = writable[0];
  if (workspace === undefined) return { readOnly: [], pinned: [] };
  const beside = [workspace, ...projectsIn(entries).map((entry) => join(workspace, entry.name))];
  // A submodule whose git directory is in its working tree (`git submodule add` of a clone already at its path keeps its
  // `.git` there): the superproject's `git status` runs git in it, and a core.fsmonitor a shell wrote in its config ran.
  // Fenced as a project is (a link on the way to it fences the workspace whole), and its directory pinned so that it
  // cannot be moved aside and rebuilt.
  const budget = configBudget();
  // Each named tree is looked at, and a `.gitmodules` is the shell's to write: past the cap the workspace is read-only whole.
  const listed = unique(beside.flatMap((project) => gitmodulesTrees(project, budget)));
  if (listed.length > MAX_SUBMODULE_TREES) return wholly(workspace, `its .gitmodules name more than ${MAX_SUBMODULE_TREES} submodules`);
  const embedded = listed.filter((tree) => !beside.includes(tree) && isDirectory(join(tree, '.git')));
  const projects = [...beside, ...embedded];
  // A link pointing out of the workspace leads somewhere it cannot write anyway (the link itself: linkOnTheWay).
  const inside = (paths: string[]) => unique(existingReal(paths).filter((path) => isWithin(path, workspace) && path !== workspace));
  const gits = inside(projects.map((project) => join(project, '.git')));
  const pinned = gits.filter((path) => lstatSync(path).isDirectory());
  // What git's config sends it to in the project (hooksPath, included files): read-only like .git/hooks and .git/config.
  const globalHooks = globalHooksPaths(home);
  // Linked worktrees' directories (.git/worktrees/<name>): git run in such a worktree reads its commondir and, where
  // extensions.worktreeConfig is on, its config.worktree; a shell wrote either and the developer's next git there ran a
  // core.fsmonitor (git-fence.test.ts). Read-only like .git/config; `.git/worktrees` and each directory in it are pinned as
  // directories above read-only files are (directoriesAbove).
  const worktreeLists = pinned.map((git) => linkedWorktreesOf(git));
  if (worktreeLists.includes(null)) return wholly(workspace, 'a repository in it has more linked worktrees than are looked into');
  const worktrees = (worktreeLists as string[][]).flat();
  const includes = globalIncludes(home, process.env, budget);
  // The hooks directories the configs name where git runs hooks (a repository's working tree), made or not: one that
  // does not exist yet is made below, so that it can be bound read-only.
  const hooks: string[] = [];
  // The submodules' own git directories (their config and hooks, read-only below as the superproject's), and the working
  // tree each serves: git follows that tree's `.git` file from the superproject's `git status`, and reads what the
  // submodule's config names there (a core.hooksPath, an include) as it reads the superproject's.
  const submodules = pinned.map((git) => submodulesOf(git));
  const moduleTrees = submodules.flatMap((found) => found.gitDirs.map((dir) => ({ dir, tree: submoduleWorktree(dir) })));
  // Where git runs hooks: each working tree with its `.git` (the projects' and the submodules').
  const trees = [...gits.map((git) => dirname(git)), ...moduleTrees.flatMap(({ tree }) => (tree !== null && exists(join(tree, '.git')) ? [tree] : []))];
  const named = [
    // .git/config.worktree is read as .git/config is where extensions.worktreeConfig is on (`git sparse-checkout` turns it
    // on): a core.fsmonitor a shell wrote there ran at the developer's next git status.
    ...pinned.flatMap((git) => ['config', 'config.worktree'].flatMap((name) => namedByGitConfig(join(git, name), dirname(git), home, budget, includes, hooks))),
    ...worktrees.flatMap((dir) => namedByGitConfig(join(dir, 'config.worktree'), worktreeOf(dir), home, budget, includes, hooks)),
    ...moduleTrees.flatMap(({ dir, tree }) => (tree === null ? [] : namedByGitConfig(join(dir, 'config'), tree, home, budget, includes, hooks))),
    ...projects.flatMap((project) => globalHooks.map((each) => hooksDir(each, project, home))),
    ...includes.map((path) => resolve(path)),
  ];
  // The user's own hooks directory, in each working tree (a submodule's too, where a commit runs it).
  const treeHooks = trees.flatMap((tree) => globalHooks.map((each) => hooksDir(each, tree, home)));
  hooks.push(...treeHooks);
  named.push(...treeHooks);
  // What each project's `.envrc` has direnv load as the developer enters it (direnv-named.ts), read-only as the .envrc.
  const direnv = projects.map((project) => join(project, '.envrc')).filter(isFile).map((file) => namedByEnvrc(file, home));
  const direnvUnknown = direnv.find((names) => names.unknown !== undefined)?.unknown;
  if (direnvUnknown !== undefined) return wholly(workspace, `${direnvUnknown}: what direnv loads there cannot be fenced`);
  const loaded = direnv.flatMap((names) => names.files);
  named.push(...loaded);
  // The directories it puts first on PATH (direnv-named.ts): read-only, made empty where missing (as a hooks directory).
  const pathDirs = unique(direnv.flatMap((names) => names.pathDirs)).filter((dir) => isWithin(realAsFarAsItExists(dir), workspace));
  // Each is a bind, made where missing, and an `.envrc` the shell made beside is read at the next shell's start.
  if (pathDirs.length > MAX_PATH_DIRS) return wholly(workspace, `its .envrc files put more than ${MAX_PATH_DIRS} directories on PATH`);
  if (pathDirs.some((dir) => realAsFarAsItExists(dir) === workspace)) return wholly(workspace, `an .envrc puts it first on PATH (PATH_add), where a command the shell makes would run as yours`);
  named.push(...pathDirs);
  // Each submodule's `.git` file (`gitdir: ../../.git/modules/libs/lib`): a shell pointed it at a repository of its own,
  // and the developer's next `git status` in the superproject ran that repository's core.fsmonitor.
  const moduleGitFiles = moduleTrees.flatMap(({ tree }) => (tree === null ? [] : [join(tree, '.git')]));
  // A submodule's working tree with no `.git` yet (a clone without --recurse-submodules, `git submodule deinit`: an empty
  // directory) is the shell's to give one, pointing at a repository of its own, which the developer's next `git status` in
  // the superproject followed and ran the core.fsmonitor of. Such a tree, as `.gitmodules` or the submodule's own config
  // names it, is read-only inside (so the submodule cannot be initialized there); one missing fences the workspace.
  const namedTrees = unique([...moduleTrees.flatMap(({ tree }) => (tree === null ? [] : [tree])), ...trees.flatMap((tree) => gitmodulesTrees(tree, budget))]);
  if (namedTrees.length > MAX_SUBMODULE_TREES) return wholly(workspace, `its .gitmodules name more than ${MAX_SUBMODULE_TREES} submodules`);
  const emptyTrees = namedTrees.filter(
    (tree) => isWithin(realAsFarAsItExists(tree), workspace) && !exists(join(tree, '.git')),
  );
  // Configs that name more than a policy may read (a shell's own `git init` whose config includes itself through
  // links, git-named.ts's ConfigBudget): what lies past the budget is unknown, so nothing of the workspace is writable.
  if (budget.exceeded) return wholly(workspace, 'its git configs name more files than a shell\'s start reads');
  // A link on the way to one of them (a `.vscode` or `.claude` linked to a directory shared between projects, a `.git`
  // linked to a repository elsewhere, a directory linked on an included file's path) is not a mount point and cannot be
  // made one: the bind lands on its target, the link stays the shell's to remove, and a shell put a `.vscode` of its
  // own in the place of one linked outside the workspace (sandboxed-shells.test.ts). The workspace is read-only whole.
  const worktreeFiles = worktrees.flatMap((dir) => WORKTREE_FILES.map((name) => join(dir, name)));
  const fencedPaths = [...projects.flatMap((project) => ['.git', ...RUN_BY_YOUR_TOOLS].map((name) => join(project, name))), ...named, ...worktreeFiles, ...moduleGitFiles, ...emptyTrees];
  const linked = fencedPaths.find((path) => linkOnTheWay(path, workspace));
  if (linked !== undefined) return wholly(workspace, `${linked}, or a directory on the way to it, is a symbolic link, which cannot be fenced`);
  // An included file that does not exist yet is git's to skip and the shell's to make: a core.fsmonitor in an
  // `include.path = ../shared.gitconfig` a shell created ran at the developer's next git status (git-fence.test.ts).
  // A file cannot be fenced before it exists, and making it would leave a file in the developer's project.
  const missing = includes.find((path) => !exists(path) && isWithin(realAsFarAsItExists(path), workspace));
  if (missing !== undefined) return wholly(workspace, `${resolve(missing)}, which a git config includes, does not exist yet (make it, even empty, for the shell to write here)`);
  // An include's path is opened as written: `l1/../inc` is the parent of wherever `l1` leads when git runs. What lies
  // before each `..` is pinned as it is now (a real directory), or the workspace is read-only where it is a link or missing.
  const beforeParents = includes.flatMap(beforeDotDots).filter((dir) => dir !== workspace && isWithin(dir, workspace));
  const unsure = beforeParents.find((dir) => linkOnTheWay(dir, workspace) || !exists(dir));
  if (unsure !== undefined) return wholly(workspace, `${unsure}, which a git config's include goes up from, is a symbolic link or does not exist`);
  // Where extensions.worktreeConfig is on, a config.worktree that does not exist yet is the shell's to make (git reads it
  // as config): made empty here, as git would make it, so that it can be bound read-only.
  for (const git of pinned) if (worktreeConfigOn(join(git, 'config'))) for (const dir of [git, ...worktrees.filter((path) => dirname(dirname(path)) === git)]) makeFile(join(dir, 'config.worktree'), '');
  // A hooks directory a config names (core.hooksPath = .githooks in ~/.gitconfig) that does not exist yet is the shell's
  // to make, and git runs what it puts there: a shell made `.githooks/pre-commit`, which the developer's next commit ran.
  // Made empty here, as git's own .git/hooks is, in a repository's working tree only (where git would look), and bound
  // read-only; an empty directory is nothing to git (status lists none). One that cannot be made fences the workspace.
  for (const dir of hooks) if (!exists(dir) && isWithin(realAsFarAsItExists(dir), workspace)) makeDirectory(dir);
  const unmade = hooks.find((dir) => !exists(dir) && isWithin(realAsFarAsItExists(dir), workspace));
  if (unmade !== undefined) return wholly(workspace, `${unmade}, the hooks directory a git config names, does not exist and could not be made`);
  for (const dir of pathDirs) if (!exists(dir)) makeDirectory(dir);
  const unmadePath = pathDirs.find((dir) => !exists(dir));
  if (unmadePath !== undefined) return wholly(workspace, `${unmadePath}, which an .envrc puts first on PATH, does not exist and could not be made`);
  // A `.env` that `dotenv` would load and that does not exist yet is made empty (nothing, to direnv) and bound read-only.
  // Any other file direnv would load that is missing (a shell.nix beside a default.nix, which `use nix` would then take
  // instead) cannot be made without changing what the developer's tools read: the workspace is read-only whole.
  for (const file of loaded) if (basename(file) === '.env' && !exists(file) && isWithin(realAsFarAsItExists(file), workspace)) makeFile(file, '');
  const unmadeTree = emptyTrees.find((tree) => !isDirectory(tree));
  if (unmadeTree !== undefined) return wholly(workspace, `${unmadeTree}, a submodule's working tree, is not there (make it, an empty directory, for the shell to write here)`);
  const unloaded = loaded.find((file) => !exists(file) && isWithin(realAsFarAsItExists(file), workspace));
  if (unloaded !== undefined) return wholly(workspace, `${unloaded}, which an .envrc has direnv load, does not exist yet (make it, even empty, for the shell to write here)`);
  // The submodules' own git directories: their config and hooks, as the superproject's (git status runs them).
  const modulePins = submodules.flatMap((found) => found.pinned);
  const moduleFiles = submodules.flatMap((found) => [...found.readOnly, ...found.gitDirs.flatMap((dir) => [join(dir, 'config'), join(dir, 'hooks'), join(dir, 'commondir')])]);
  // A `commondir` file in a git directory names the repository git then takes its config and hooks from: a shell wrote
  // `.git/commondir` naming a copy of its own, and the developer's next git status ran that copy's core.fsmonitor
  // (git-fence.test.ts). Only a linked worktree's directory has one; elsewhere a file that does not exist cannot be bound
  // read-only, so one naming the git directory itself (`.`: the same repository to git) is made first.
  const commonDirs = [...pinned, ...submodules.flatMap((found) => found.gitDirs)].map((dir) => join(dir, 'commondir'));
  for (const file of commonDirs) makeFile(file, '.\n');
  const readOnly = inside([...projects.flatMap((project) => RUN_BY_YOUR_TOOLS.map((name) => join(project, name))), ...named, ...moduleFiles, ...moduleGitFiles, ...worktreeFiles, ...commonDirs, ...emptyTrees]);
  // What the links directly in those directories lead to in the workspace is what the tools run: a hook installed as
  // `ln -s ../../hooks/pre-commit .git/hooks/pre-commit` runs hooks/pre-commit, which a shell otherwise edited.
  const links = readOnly.flatMap((dir) => direntsOf(dir).filter((entry) => entry.isSymbolicLink()).map((entry) => join(dir, entry.name)));
  // Each link is made real and bound, and each directory above what it leads to pinned, synchronously at a shell's
  // start: a shell that filled a `.claude` it made with links to paths deep in the workspace would hold the host's
  // loop, and have the next shell's fence leave some out. Past the cap the workspace is read-only whole instead.
  if (links.length > MAX_FENCED_LINKS) return wholly(workspace, `more than ${MAX_FENCED_LINKS} links lie in the directories your tools run`);
  const linkedTo = inside(links);
  const allReadOnly = unique([...gits.filter((path) => !pinned.includes(path)), ...readOnly, ...linkedTo]);
  // A project beside, directly in the workspace, is not pinned: it may be moved aside whole (docs/security.md), and
  // pinning each of up to 500 would double their binds.
  const notPinned = new Set([...pinned, ...modulePins, ...allReadOnly, ...gits.map((git) => dirname(git))]);
  const above = new Set<string>();
  for (const dir of beforeParents) for (const each of [...directoriesAbove(dir, workspace), dir]) if (!notPinned.has(each)) above.add(each);
  for (const path of allReadOnly) {
    for (const dir of directoriesAbove(path, workspace)) if (!notPinned.has(dir)) above.add(dir);
    if (above.size > MAX_PINNED_ABOVE) return wholly(workspace, `more than ${MAX_PINNED_ABOVE} directories lie above what your tools run`);
  }
  return { readOnly: allReadOnly, pinned: [...embedded, ...pinned, ...modulePins, ...above] };
}

/** What git reads from a linked worktree's directory: the repository it belongs to, its own config, and the worktree it names. */
const WORKTREE_FILES = ['commondir', 'config.worktree', 'gitdir'];

/** Bytes of a linked worktree's `gitdir` read, at most: it names one path. */
const MAX_GITDIR_BYTES = 4096;

/**
 * The worktree a linked worktree's directory serves (its `gitdir` file names the worktree's `.git` file), else the
 * directory. The file is the shell's to make (`.git/worktrees` is writable): read as untrusted, without blocking. A
 * FIFO there, read as a file, held the host's loop at the next shell's start, every session and the panel with it.
 */
function worktreeOf(dir: string): string {
  try {
    const named = readUntrustedFileSync(join(dir, 'gitdir'), MAX_GITDIR_BYTES)?.toString('utf8').trim() ?? '';
    return isAbsolute(named) ? dirname(named) : dir;
  } catch {
    return dir;
  }
}

/** The directories an include's path goes up from (`a/l1/../inc`: `a/l1`), each resolved as far as the path before it. */
function beforeDotDots(path: string): string[] {
  const dirs: string[] = [];
  const parts = path.split('/');
  for (let index = 1; index < parts.length; index++) if (parts[index] === '..') dirs.push(resolve(parts.slice(0, index).join('/') || '/'));
  return dirs;
}

/** Whether `path` is a directory, not through a link; false where it cannot be looked at. */
function isDirectory(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
  } catch {
    return false;
  }
}

/** Whether `path` is a regular file, not through a link; false where it cannot be looked at. */
function isFile(path: string): boolean {
  try {
    return lstatSync(path, { throwIfNoEntry: false })?.isFile() === true;
  } catch {
    return false;
  }
}

/** A hooks directory as a config says it (absolute, `~/`, or relative to the working tree `tree`). */
function hooksDir(path: string, tree: string, home: string): string {
  return path === '~' || path.startsWith('~/') ? join(home, path.slice(1)) : resolve(tree, path);
}

/**
 * Makes the directory `dir` (and those above it) where nothing is there yet; a failure leaves it to the caller's fence.
 * The caller found no link on the way (linkOnTheWay).
 */
function makeDirectory(dir: string): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o755 });
  } catch {
    // Made by another in between, or cannot be: the caller looks again.
  }
}

/** Makes `file` with `text` where nothing is there yet, without following a link; a failure leaves it to the caller's fence. */
function makeFile(file: string, text: string): void {
  let fd;
  try {
    fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
  } catch {
    // It exists (or cannot be made): what exists is bound read-only.
    return;
  }
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/**
 * The directories between `workspace` and `path` in it (both left out), parents first. A read-only file in a
 * directory that is not a mount point moves with it: a shell moved `config` aside and made `config/git/repo.gitconfig`
 * (an included file) anew, and the developer's next `git status` ran its `core.fsmonitor`; so with a hooks directory
 * `core.hooksPath` names (`tools/git-hooks`) and a hook's linked file (`scripts/hooks/x`). Each is bound onto itself,
 * as `.git` is.
 */
function directoriesAbove(path: string, workspace: string): string[] {
  const dirs: string[] = [];
  for (let dir = dirname(path); dir !== workspace && isWithin(dir, workspace); dir = dirname(dir)) dirs.unshift(dir);
  return dirs;
}

/** Whether a link lies between `workspace` and `path` in it, `path` itself included, as far as the path exists. */
function linkOnTheWay(path: string, workspace: string): boolean {
  if (path === workspace || !isWithin(path, workspace)) return false;
  let at = workspace;
  for (const part of path.slice(workspace.length).split(sep)) {
    if (part === '') continue;
    at = join(at, part);
    let stat;
    try {
      stat = lstatSync(at, { throwIfNoEntry: false });
    } catch {
      return false;
    }
    if (stat === undefined) return false;
    if (stat.isSymbolicLink()) return true;
  }
  return false;
}

/** The directories directly in a workspace that may be projects of their own (not one of RUN_BY_YOUR_TOOLS). */
export function projectsIn(entries: readonly Dirent[]): Dirent[] {
  return entries.filter((entry) => entry.isDirectory() && !(RUN_BY_YOUR_TOOLS as readonly string[]).includes(entry.name));
}
