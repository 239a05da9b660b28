// bubblewrap's command line for a policy: the filesystem built from binds, then the namespaces.
import { lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { emptyFile } from './empty-file.js';
import type { SandboxPolicy } from './policy.js';
import { isWithin } from './within.js';

export interface BwrapOptions {
  /** Paths to show read-only whatever the private /tmp hides (the shell integration's rcfile directory). */
  keepVisible?: string[];
  /** HOME: shown read-only even where it lies under /tmp, which the sandbox replaces. */
  home: string;
  /** The user's runtime directory ($XDG_RUNTIME_DIR, /run/user/UID): its sockets (ssh-agent, gpg-agent, D-Bus) are hidden. */
  runtimeDir?: string;
  /** Where the shell starts. */
  cwd: string;
  /** Variables to set for the program only (the loader's, which bubblewrap starts without). */
  setenv?: Readonly<Record<string, string>>;
  /** Files shown as another, read-only (HOME's startup files without their credentials: startup-files.ts); a hidden path still wins. */
  covers?: ReadonlyArray<{ path: string; cover: string }>;
}

/** Variables naming agents' sockets the sandbox hides: a shell left with them would only fail to connect. */
const UNSET = ['SSH_AUTH_SOCK', 'GPG_AGENT_INFO'];

/**
 * The arguments before `--` and the command. Mounts apply in order, so the
 * order is the policy: everything read-only, fresh /dev and /proc (a new PID
 * namespace, so no process outside can be seen or signalled; read-only, for a
 * fresh /proc lets root write what reaches the whole machine: the kernel's
 * settings, where a `kernel.core_pattern` of `|program` runs that program as
 * root at the next crash, the SysRq trigger, PCI config space; started by
 * root, bubblewrap's user namespace maps root to root, so a shell with no
 * capability still owns those files, and wrote them), a private /tmp,
 * what must stay visible under it, the writable binds, ptydeck's own files
 * read-only again where a writable bind holds them, HOME's startup files
 * without their credentials, then the hidden paths over all of it (a secret
 * inside the workspace stays hidden).
 *
 * No `--new-session`: the session's terminal is one ptydeck made for it alone,
 * so TIOCSTI can reach only that terminal, and a new POSIX session would take
 * job control (Ctrl-Z, fg) away from the shell.
 */
export function bwrapArgs(policy: SandboxPolicy, options: BwrapOptions): string[] {
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--remount-ro', '/proc', '--tmpfs', '/tmp'];
  const underTmp = (path: string) => isWithin(path, '/tmp');
  if (underTmp(options.home)) args.push('--ro-bind', options.home, options.home);
  for (const path of options.keepVisible ?? []) if (underTmp(path)) args.push('--ro-bind', path, path);
  const binds = policy.writable.filter((path) => path !== '/tmp');
  for (const path of binds) args.push('--bind', policy.cacheSources[path] ?? path, path);
  // The workspace is the agent's to name, and it may be, or hold, ptydeck's own files: the rcfile every agent shell
  // starts with, the init file of the developer's tabs, the empty file laid over hidden files. Read-only again over it.
  const own = new Set<string>();
  for (const path of [...(options.keepVisible ?? []), dirname(emptyFile())]) {
    if (binds.some((bind) => isWithin(path, bind) || isWithin(bind, path))) own.add(path);
  }
  const temp = realTempDir();
  if (temp !== null) for (const bind of binds) for (const path of ownTempDirs(bind, temp)) own.add(path);
  for (const path of own) args.push('--ro-bind', path, path);
  for (const path of policy.pinned) args.push('--bind', path, path);
  for (const path of policy.readOnly) args.push('--ro-bind', path, path);
  for (const { path, cover } of options.covers ?? []) args.push('--ro-bind', cover, path);
  for (const path of policy.hidden) args.push(...hide(path));
  if (options.runtimeDir && isDirectory(options.runtimeDir)) args.push('--tmpfs', options.runtimeDir);
  for (const name of UNSET) args.push('--unsetenv', name);
  for (const [name, value] of Object.entries(options.setenv ?? {})) args.push('--setenv', name, value);
  // Run by root (a container's developer, a VM's), bubblewrap keeps every capability for the program unless told:
  // a shell with CAP_SYS_ADMIN unmounts what hides ~/.ssh. Unprivileged, this is its default already.
  args.push('--cap-drop', 'ALL');
  args.push('--unshare-all');
  if (policy.network) args.push('--share-net');
  // The sandbox ends with the host that started it, as a terminal's shell ends with its window.
  args.push('--die-with-parent', '--chdir', options.cwd);
  return args;
}

/**
 * What ptydeck names its directories under the host's temporary directory (common/host-temp-dirs.ts):
 * the shells' rcfiles' (shell-integration.ts), the empty file's (empty-file.ts); and the rcfiles' as
 * earlier hosts named them (`ptydeck-shell-<six>`), for one of those still running.
 */
const OWN_TEMP_DIR = /^ptydeck-((shell|sandbox)-\d+-(\d+|\?)|shell)-[A-Za-z0-9]{6}$/;

/** The host's temporary directory, made real; null where it cannot be. */
function realTempDir(): string | null {
  try {
    return realpathSync.native(tmpdir());
  } catch {
    return null;
  }
}

/** ptydeck's own directories under the host's temporary directory (`temp`, made real) that `bind` is, holds or lies in. */
function ownTempDirs(bind: string, temp: string): string[] {
  if (isWithin(temp, bind)) {
    try {
      return readdirSync(temp)
        .filter((name) => OWN_TEMP_DIR.test(name))
        .map((name) => join(temp, name))
        .filter((path) => lstatSync(path, { throwIfNoEntry: false })?.isDirectory() === true);
    } catch {
      return [];
    }
  }
  if (!isWithin(bind, temp) || bind === temp) return [];
  const first = bind.slice(temp.length).split(sep).find((part) => part !== '');
  return first !== undefined && OWN_TEMP_DIR.test(first) ? [join(temp, first)] : [];
}

function hide(path: string): string[] {
  return isDirectory(path) ? ['--tmpfs', path] : ['--ro-bind', emptyFile(), path];
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
