// What a profile allows for one session: the paths it may write, the paths it may not see, the network.
import { closeSync, constants, lstatSync, openSync, readFileSync, readlinkSync, statSync, writeSync, type Dirent } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { MAX_READ_ONLY_WHY_CHARS } from '@ptydeck/contract';
import { linksAmongDotFiles } from './dot-links.js';
import { configBudget, globalHooksPaths, globalIncludes, linkedWorktreesOf, namedByGitConfig, submodulesOf, worktreeConfigOn } from './git-named.js';
import type { SandboxProfile } from './profile.js';
import { settled, stampOf } from './settled.js';
import { direntsOf, ensureDir, exists, existingReal, realOr, realOrThrow, unique } from './real-paths.js';
import { isWithin } from './within.js';

/**
 * Secrets hidden from a sandboxed shell unless the configuration says otherwise:
 * keys, cloud and forge credentials, browser profiles (cookies, saved passwords)
 * (relative to HOME); and the system's Unix sockets that hand their caller
 * more than the developer's own reach (absolute). A socket on the read-only
 * root stays connectable inside, whatever the network namespace: docker's or
 * LXD's group is root on the machine, libvirt's starts VMs, the system D-Bus
 * lets polkit grant an active session's user more.
 */
export const DEFAULT_HIDDEN = [
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.config/gcloud',
  '.kube',
  '.config/gh',
  '.netrc',
  '.docker',
  '.mozilla',
  '.config/google-chrome',
  '.config/chromium',
  '.config/BraveSoftware',
  '.config/microsoft-edge',
  'snap/firefox',
  // Tokens in plain files: git's credential store, package registries' publish tokens, Vault, Terraform.
  '.git-credentials',
  '.config/git/credentials',
  '.npmrc',
  '.pypirc',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.gem/credentials',
  '.vault-token',
  '.terraform.d/credentials.tfrc.json',
  '.config/hub',
  '.local/share/keyrings',
  '.password-store',
  // Keys to the developer's running interpreters: a Jupyter kernel's connection file holds its HMAC key and ports,
  // and the shell reaches them on the loopback (network on), so whoever reads it runs code in that kernel, unsandboxed.
  '.local/share/jupyter/runtime',
  // What the developer typed, secrets pasted on command lines included.
  '.bash_history',
  '.zsh_history',
  '/run/docker.sock',
  '/var/run/docker.sock',
  '/run/podman',
  '/run/containerd',
  '/run/libvirt',
  '/var/run/libvirt',
  '/var/snap/lxd/common/lxd/unix.socket',
  '/var/lib/lxd/unix.socket',
  '/run/snapd.socket',
  '/run/snapd-snap.socket',
  '/run/dbus/system_bus_socket',
  // systemd's own manager socket, root's only: what root's systemctl and systemd-run use to start anything, unsandboxed.
  '/run/systemd/private',
  // GNU screen's sockets (S-<user>): attaching, or `screen -X stuff`, types into the developer's own screens.
  '/run/screen',
  '/var/run/screen',
] as const;

/**
 * Package managers' caches, writable so that `npm install`, `pip install` and
 * `cargo build` work inside: each is created when missing (0700), since a
 * read-only HOME would otherwise make the first install fail. Relative to HOME.
 * Inside, each is the sandboxes' own (SANDBOX_CACHES), not the developer's: what
 * the developer's tools find in a cache they run without checking it again (a
 * package in ~/.npm/_npx, by npx; an extracted crate's build.rs, by cargo; a
 * built wheel, by pip), so a shared one carried what a sandboxed shell planted out.
 */
export const DEFAULT_CACHES = ['.npm', '.cache/pip', '.cargo/registry', '.cargo/git'] as const;

/** Where the sandboxes' own package caches live, relative to HOME: one directory per DEFAULT_CACHES entry, shared by every sandboxed shell. */
export const SANDBOX_CACHES = '.cache/ptydeck-sandbox';

/**
 * What the developer's own tools run, unasked, from a project: git's hooks and config (a commit runs the
 * hooks; the config names an fsmonitor, a pager, an ssh command; `config.worktree` is read as config where
 * extensions.worktreeConfig is on, as `git sparse-checkout` sets it), direnv's `.envrc` (run on `cd`), an
 * editor's workspace settings and tasks (`.vscode`, `.idea`), an agent's own settings, hooks and MCP
 * servers (`.claude`, `.mcp.json`, Cursor's `.cursor/hooks.json` and `mcp.json`, Gemini CLI's
 * `.gemini/settings.json`: each names commands the tool runs). A writable workspace holds them (in itself and in each directory directly in
 * it: a folder of projects): each that exists is read-only inside, as sandbox-runtime's mandatory deny
 * list keeps them, so code the shell runs (a package's install script) cannot plant what runs outside.
 */
export const RUN_BY_YOUR_TOOLS = ['.git/hooks', '.git/config', '.git/config.worktree', '.envrc', '.vscode', '.idea', '.claude', '.mcp.json', '.cursor', '.gemini'] as const;

/**
 * Directories in a workspace looked into for RUN_BY_YOUR_TOOLS, at most: a policy is made at every shell's start, and
 * each one found is a bind. A workspace with more is not writable (sandboxPolicy).
 */
const MAX_PROJECTS_LOOKED_AT = 500;
/** Links followed in the read-only directories (a hook linked into the project), at most; past it the workspace is read-only. */
const MAX_FENCED_LINKS = 256;
/** Directories pinned above read-only paths (directoriesAbove), at most; past it the workspace is read-only. */
const MAX_PINNED_ABOVE = 256;

export interface PolicyInput {
  profile: Exclude<SandboxProfile, 'off'>;
  /** The session's working directory: the one tree it may write. */
  workspace: string;
  home: string;
  /** ptydeck's own directories (state, config, runtime): not visible at all. */
  ptydeckDirs: string[];
  /** More writable paths, from the configuration. Absolute. */
  writable?: string[];
  /** The hidden list; default DEFAULT_HIDDEN under HOME. Absolute or relative to HOME. */
  hidden?: string[];
  /** The PATH the developer's shells inherit (the session's, never the call's): what is directly in its directories is run by name. */
  searchPath?: string;
}

export interface SandboxPolicy {
  profile: Exclude<SandboxProfile, 'off'>;
  workspace: string;
  /** Every writable path: the workspace, a private /tmp, the caches, the configuration's. */
  writable: string[];
  /** Paths replaced by an empty directory (or an empty file), in the order they are applied. */
  hidden: string[];
  /** Where each package cache (a path in `writable`) is bound from: the sandboxes' own, not the developer's. */
  cacheSources: Record<string, string>;
  /** Paths inside the writable ones that stay read-only (RUN_BY_YOUR_TOOLS in the workspace). */
  readOnly: string[];
  /**
   * Writable directories bound onto themselves, so that they cannot be renamed (a mount point cannot):
   * a repository's `.git`, which a shell would otherwise move aside and replace with one whose config
   * and hooks are its own.
   */
  pinned: string[];
  /** Why the workspace itself is not writable, when it is not: said to the agent and the developer (SandboxInfo). */
  readOnlyWhy?: string;
  network: boolean;
}

/**
 * Resolves a profile for one session. Paths are made real (symbolic links
 * followed) so that a link cannot point a bind or a hiding mount elsewhere, and
 * only paths that exist are kept (but for caches, which are created). Throws
 * when the workspace is itself one of the hidden paths or inside one; a
 * workspace that is HOME or holds it is not writable.
 */
export function sandboxPolicy(input: PolicyInput): SandboxPolicy {
  const workspace = realOrThrow(input.workspace, 'the workspace');
  const home = realOr(input.home);
  const underHome = (path: string) => (isAbsolute(path) ? path : join(home, path));
  const cacheSources: Record<string, string> = {};
  for (const cache of DEFAULT_CACHES) {
    const target = ensureDir(join(home, cache));
    const source = ensureDir(join(home, SANDBOX_CACHES, cache.replace(/^\./, '').replaceAll('/', '-')));
    if (target !== null && source !== null) cacheSources[target] = source;
  }
  const caches = Object.keys(cacheSources);
  // config.json's own word, but never one holding HOME or ptydeck's own directories, made or not: `writable: ["~/.config"]`
  // let a shell make ptydeck's config.json, which names its own sandbox.
  const ownDirs = input.ptydeckDirs.map(realAsFarAsItExists);
  const extra = existingReal((input.writable ?? []).map((path) => resolve(path))).filter((path) => !isWithin(home, path) && !ownDirs.some((dir) => isWithin(dir, path)));
  const hidden = unique(existingReal([...input.ptydeckDirs, ...(input.hidden ?? DEFAULT_HIDDEN).map(underHome)]));
  for (const path of hidden) {
    if (isWithin(workspace, path)) throw new Error(`the workspace ${workspace} is inside ${path}, which a sandboxed shell may not see`);
  }
  // The working directory is the agent's to name (HOME, where a host or a bridge runs, by default), and a writable
  // HOME is no fence: ~/.bashrc, ~/.gitconfig and ~/.local/bin run as the developer, outside any sandbox. So a
  // workspace that holds HOME is read-only, like the rest; so is one in HOME's dot-directories (~/.config,
  // ~/.local/bin: what the developer's programs read and run, whether it exists yet or not), and one that holds
  // ptydeck's own directories, existing or not (the shell would write ptydeck's config.json, which names the sandbox).
  // Nor is one in the system's directories (/etc, /usr, /var, /run): a host run as root (a container's, a VM's) writes
  // them, and /etc/cron.d, /etc/ld.so.preload or /run/systemd/system run what they hold as root, outside any sandbox.
  // Nor one that is or holds another user's HOME, or lies in its dot-directories (what root's shell wrote there runs as that user).
  const homes = [home, ...otherHomes(home)];
  // The developer's PATH: a command planted directly in one of its directories (~/bin, a project's bin that direnv's
  // PATH_add put first) is what their next `git` or `ls` runs, as them. A workspace that is one is read-only; one
  // that holds one keeps it read-only inside.
  const pathDirs = existingReal((input.searchPath ?? '').split(':').filter((dir) => isAbsolute(dir)));
  const entries = direntsOf(workspace);
  const fencedWhy = whyNotWritable();
  function whyNotWritable(): string | undefined {
    // More directories than are looked into for what the developer's tools run (runByYourTools): those past the cap
    // would keep their .git/config and hooks writable, and a shell makes directories listed before a project's at will
    // (601 made `zz-project/.git/config` writable to the next shell, which set a core.fsmonitor: sandboxed-shells.test.ts).
    if (projectsIn(entries).length > MAX_PROJECTS_LOOKED_AT) return `it holds more than ${MAX_PROJECTS_LOOKED_AT} directories, more than are looked into for the git hooks and configs your tools run`;
    if (pathDirs.includes(workspace)) return 'it is a directory on your PATH';
    if (homes.some((each) => isWithin(each, workspace))) return 'it is or holds a home directory';
    if (homes.some((each) => inDotDirectory(workspace, each))) return "it lies in a home directory's dot-directories";
    if (ownDirs.some((dir) => isWithin(dir, workspace))) return "it holds ptydeck's own directories";
    if (inSystemDirectory(workspace, home)) return "it lies in the system's directories";
    // Nor one that holds, or lies in, what a link among HOME's dot-files leads to (a dotfiles repository ~/.bashrc or
    // ~/.config/nvim links into, as GNU stow lays it out): what the developer's shell and editor run would be its to write.
    if (linkedFromHome(home, [...caches, ...extra]).some((target) => isWithin(target, workspace) || isWithin(workspace, target))) {
      return "a link among your home's dot-files leads into it";
    }
    return undefined;
  }
  const fenced = fencedWhy !== undefined;
  const ownWorkspace = fenced ? [] : [workspace];
  return {
    profile: input.profile,
    workspace,
    writable: unique([...ownWorkspace, '/tmp', ...caches, ...extra]),
    // A Unix socket in the working directory: bound in (from under the host's /tmp, which the private one hides), the
    // developer's tmux server (/tmp/tmux-UID/default), ssh-agent (/tmp/ssh-*/agent.*) or X server would take its commands.
    hidden: unique([...hidden, ...entries.filter((entry) => entry.isSocket()).map((entry) => join(workspace, entry.name))]),
    cacheSources,
    ...withReadOnly(runByYourTools(ownWorkspace, entries, home), fenced ? [] : pathDirs.filter((dir) => dir !== workspace && isWithin(dir, workspace))),
    ...(fencedWhy === undefined ? {} : { readOnlyWhy: fencedWhy }),
    network: input.profile === 'workspace',
  };
}

/**
 * The system's directories: what a host run as root may write and the machine runs as root. Not among them:
 * /var/tmp, a temporary directory like /tmp; /var/www, where projects served live; HOME where it lies in one
 * (root's /root).
 */
const SYSTEM_DIRS = ['/etc', '/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/boot', '/var', '/opt', '/run', '/root', '/snap', '/nix', '/proc', '/sys', '/dev'];
const NOT_SYSTEM_DIRS = ['/var/tmp', '/var/www'];

function inSystemDirectory(path: string, home: string): boolean {
  if (NOT_SYSTEM_DIRS.some((dir) => isWithin(path, dir)) || (home !== '/' && isWithin(path, home))) return false;
  return SYSTEM_DIRS.some((dir) => isWithin(path, dir));
}

/** The other users' home directories (/etc/passwd's), made real: none where it cannot be read. */
function otherHomes(home: string): string[] {
  // Made real at each shell's start: a link among a home's ancestors may have moved since the file was read.
  return unique(existingReal(passwdHomes())).filter((path) => path !== home && path !== '/');
}

let passwd: { file: string; stamp: string; homes: string[] } | undefined;

/**
 * The absolute homes a passwd file names (but /), as written. Read and parsed again only when the file's
 * stamp (device, inode, size, modification and change times: a rename over it, an edit in place, a touch
 * back of the modification time all change one) differs from the last read's, or that read was of a file
 * changed too recently to be sure of (settled.ts); a stat per shell instead. `now` is the clock, for tests.
 */
export function passwdHomes(file = '/etc/passwd', now = Date.now()): string[] {
  let stat;
  try {
    stat = statSync(file);
  } catch {
    return [];
  }
  const stamp = stampOf(stat);
  if (passwd?.file === file && passwd.stamp === stamp) return passwd.homes;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const homes = text
    .split('\n')
    .map((line) => line.split(':')[5])
    .filter((path): path is string => path !== undefined && isAbsolute(path) && path !== '/');
  // Read after the stat: a change in between gives a newer stamp at the next call, which reads again.
  passwd = settled(stat, now) ? { file, stamp, homes } : undefined;
  return homes;
}

/**
 * Whether no sandboxed shell may write `path`, whatever its working directory: it holds HOME, or lies in
 * HOME's dot-directories or the system's directories (config.json's `writable` aside).
 */
export function beyondEverySandbox(path: string, home: string): boolean {
  return isAbsolute(path) && (isWithin(home, path) || inDotDirectory(path, home) || inSystemDirectory(path, home));
}

/**
 * The real targets of the links among HOME's dot-files (dot-links.ts), each followed again at every shell's
 * start: a link's own directory may be remembered, not where a link on the way to its target leads now.
 */
function linkedFromHome(home: string, writable: readonly string[]): string[] {
  const targets: string[] = [];
  for (const link of linksAmongDotFiles(home, Date.now(), writable)) {
    // A dangling link's target as far as it exists (the shell would make the rest); one holding HOME (Wine's z: drive
    // links to /) says nothing of what HOME's programs run, and would fence every working directory.
    const target = linkTarget(link);
    if (target !== null && !isWithin(home, target)) targets.push(target);
  }
  return targets;
}

function linkTarget(link: string): string | null {
  try {
    return realAsFarAsItExists(resolve(dirname(link), readlinkSync(link)));
  } catch {
    return null;
  }
}

/** Whether `path` lies in one of `home`'s dot-directories (~/.config/x, ~/.local). */
function inDotDirectory(path: string, home: string): boolean {
  return path !== home && isWithin(path, home) && path.slice(home.length).split(sep).find((part) => part !== '')!.startsWith('.');
}

/** `path` made real as far as it exists: a link among its ancestors cannot hide that it lies in a workspace. */
function realAsFarAsItExists(path: string): string {
  const absolute = resolve(path);
  if (exists(absolute)) return realOr(absolute);
  const parent = dirname(absolute);
  return parent === absolute ? absolute : join(realAsFarAsItExists(parent), basename(absolute));
}

/** What runByYourTools fences: the read-only paths, the pinned directories, and why the workspace is read-only whole when it is. */
type Fence = Pick<SandboxPolicy, 'readOnly' | 'pinned' | 'readOnlyWhy'>;

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
function runByYourTools(writable: string[], entries: readonly Dirent[], home: string): Fence {
  const workspace = writable[0];
  if (workspace === undefined) return { readOnly: [], pinned: [] };
  const projects = [workspace, ...projectsIn(entries).map((entry) => join(workspace, entry.name))];
  // A link pointing out of the workspace leads somewhere it cannot write anyway (the link itself: linkOnTheWay).
  const inside = (paths: string[]) => unique(existingReal(paths).filter((path) => isWithin(path, workspace) && path !== workspace));
  const gits = inside(projects.map((project) => join(project, '.git')));
  const pinned = gits.filter((path) => lstatSync(path).isDirectory());
  // What git's config sends it to in the project (hooksPath, included files): read-only like .git/hooks and .git/config.
  const globalHooks = globalHooksPaths(home);
  const budget = configBudget();
  // Linked worktrees' directories (.git/worktrees/<name>): git run in such a worktree reads its commondir and, where
  // extensions.worktreeConfig is on, its config.worktree; a shell wrote either and the developer's next git there ran a
  // core.fsmonitor (git-fence.test.ts). Read-only like .git/config; `.git/worktrees` and each directory in it are pinned as
  // directories above read-only files are (directoriesAbove).
  const worktreeLists = pinned.map((git) => linkedWorktreesOf(git));
  if (worktreeLists.includes(null)) return wholly(workspace, 'a repository in it has more linked worktrees than are looked into');
  const worktrees = (worktreeLists as string[][]).flat();
  const includes = globalIncludes(home, process.env, budget);
  const named = [
    // .git/config.worktree is read as .git/config is where extensions.worktreeConfig is on (`git sparse-checkout` turns it
    // on): a core.fsmonitor a shell wrote there ran at the developer's next git status.
    ...pinned.flatMap((git) => ['config', 'config.worktree'].flatMap((name) => namedByGitConfig(join(git, name), dirname(git), home, budget, includes))),
    ...worktrees.flatMap((dir) => namedByGitConfig(join(dir, 'config.worktree'), worktreeOf(dir), home, budget, includes)),
    ...projects.flatMap((project) => globalHooks.map((hooks) => (hooks === '~' || hooks.startsWith('~/') ? join(home, hooks.slice(1)) : resolve(project, hooks)))),
    ...includes.map((path) => resolve(path)),
  ];
  // Configs that name more than a policy may read (a shell's own `git init` whose config includes itself through
  // links, git-named.ts's ConfigBudget): what lies past the budget is unknown, so nothing of the workspace is writable.
  if (budget.exceeded) return wholly(workspace, 'its git configs name more files than a shell\'s start reads');
  // A link on the way to one of them (a `.vscode` or `.claude` linked to a directory shared between projects, a `.git`
  // linked to a repository elsewhere, a directory linked on an included file's path) is not a mount point and cannot be
  // made one: the bind lands on its target, the link stays the shell's to remove, and a shell put a `.vscode` of its
  // own in the place of one linked outside the workspace (sandboxed-shells.test.ts). The workspace is read-only whole.
  const worktreeFiles = worktrees.flatMap((dir) => WORKTREE_FILES.map((name) => join(dir, name)));
  const fencedPaths = [...projects.flatMap((project) => ['.git', ...RUN_BY_YOUR_TOOLS].map((name) => join(project, name))), ...named, ...worktreeFiles];
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
  // The submodules' own git directories: their config and hooks, as the superproject's (git status runs them).
  const submodules = pinned.map((git) => submodulesOf(git));
  const modulePins = submodules.flatMap((found) => found.pinned);
  const moduleFiles = submodules.flatMap((found) => [...found.readOnly, ...found.gitDirs.flatMap((dir) => [join(dir, 'config'), join(dir, 'hooks'), join(dir, 'commondir')])]);
  // A `commondir` file in a git directory names the repository git then takes its config and hooks from: a shell wrote
  // `.git/commondir` naming a copy of its own, and the developer's next git status ran that copy's core.fsmonitor
  // (git-fence.test.ts). Only a linked worktree's directory has one; elsewhere a file that does not exist cannot be bound
  // read-only, so one naming the git directory itself (`.`: the same repository to git) is made first.
  const commonDirs = [...pinned, ...submodules.flatMap((found) => found.gitDirs)].map((dir) => join(dir, 'commondir'));
  for (const file of commonDirs) makeFile(file, '.\n');
  const readOnly = inside([...projects.flatMap((project) => RUN_BY_YOUR_TOOLS.map((name) => join(project, name))), ...named, ...moduleFiles, ...worktreeFiles, ...commonDirs]);
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
  return { readOnly: allReadOnly, pinned: [...pinned, ...modulePins, ...above] };
}

/** What git reads from a linked worktree's directory: the repository it belongs to, its own config, and the worktree it names. */
const WORKTREE_FILES = ['commondir', 'config.worktree', 'gitdir'];

/** The worktree a linked worktree's directory serves (its `gitdir` file names the worktree's `.git` file), else the directory. */
function worktreeOf(dir: string): string {
  try {
    const named = readFileSync(join(dir, 'gitdir'), 'utf8').trim();
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
function projectsIn(entries: readonly Dirent[]): Dirent[] {
  return entries.filter((entry) => entry.isDirectory() && !(RUN_BY_YOUR_TOOLS as readonly string[]).includes(entry.name));
}

function withReadOnly(policy: Fence, more: string[]): Fence {
  return { ...policy, readOnly: unique([...policy.readOnly, ...more]) };
}
