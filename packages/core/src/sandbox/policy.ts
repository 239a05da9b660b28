// What a profile allows for one session: the paths it may write, the paths it may not see, the network.
import { readFileSync, readlinkSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { linksAmongDotFiles } from './dot-links.js';
import type { SandboxProfile } from './profile.js';
import { settled, stampOf } from './settled.js';
import { direntsOf, ensureDir, existingReal, realAsFarAsItExists, realOr, realOrThrow, unique } from './real-paths.js';
import { MAX_PROJECTS_LOOKED_AT, projectsIn, runByYourTools, type Fence } from './tool-fence.js';
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

export { RUN_BY_YOUR_TOOLS } from './tool-fence.js';

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
  /**
   * Each repository's `.git` the fence pins (the working directory's, each project's directly in it) read-only instead, as
   * Codex's workspace-write keeps `.git`: git's own state (a rebase in progress, the index's gitlinks) is then not the
   * shell's to write, and neither are its commits (config.json's `readOnlyGit`).
   */
  readOnlyGit?: boolean;
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
  const fence = runByYourTools(ownWorkspace, entries, home);
  const readOnlyGits = input.readOnlyGit ? fence.pinned.filter((path) => basename(path) === '.git') : [];
  return {
    profile: input.profile,
    workspace,
    writable: unique([...ownWorkspace, '/tmp', ...caches, ...extra]),
    // A Unix socket in the working directory: bound in (from under the host's /tmp, which the private one hides), the
    // developer's tmux server (/tmp/tmux-UID/default), ssh-agent (/tmp/ssh-*/agent.*) or X server would take its commands.
    hidden: unique([...hidden, ...entries.filter((entry) => entry.isSocket()).map((entry) => join(workspace, entry.name))]),
    cacheSources,
    ...withReadOnly(fence, [...(fenced ? [] : pathDirs.filter((dir) => dir !== workspace && isWithin(dir, workspace))), ...readOnlyGits]),
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

function withReadOnly(policy: Fence, more: string[]): Fence {
  return { ...policy, readOnly: unique([...policy.readOnly, ...more]) };
}
