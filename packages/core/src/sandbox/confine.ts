// Turns a session's sandbox choice into the wrapper its program runs under, or a clear refusal.
import { MAX_SANDBOX_LIST_CHARS, type SandboxInfo } from '@ptydeck/contract';
import { sandboxAvailability } from './availability.js';
import { WaitFirst } from '../common/wait-first.js';
import { bwrapArgs } from './bwrap-args.js';
import { emptyFile } from './empty-file.js';
import type { Listings } from './listings.js';
import { sandboxPolicy } from './policy.js';
import type { SandboxChoice } from './profile.js';
import { startupFileCovers } from './startup-files.js';

/** Where a session's sandbox is built from: the machine's paths and the developer's configuration. */
export interface SandboxContext {
  home: string;
  /** ptydeck's state and config directories: never visible inside. */
  ptydeckDirs: string[];
  /** Paths to keep visible under the private /tmp (the shell integration's rcfile). */
  keepVisible?: string[];
  /** From the configuration: more writable paths, and the hidden list (default DEFAULT_HIDDEN). */
  writable?: string[];
  hidden?: string[];
  runtimeDir?: string;
  /** PATH bubblewrap is looked for on. Default the host's. */
  searchPath?: string;
  /** Credentials in the inherited environment (secret-env.ts), unset inside. */
  unsetEnv?: readonly string[];
  /** config.json's `readOnlyGit`: every repository's `.git` in the working directory read-only (policy.ts). */
  readOnlyGit?: boolean;
  /** config.json's `keepEnv`: credentials the developer passes into sandboxed shells, left in HOME's startup files too. */
  keepEnv?: readonly string[];
  /** The program's dynamic loader variables, which bubblewrap itself starts without: set inside, for the program. */
  loaderEnv?: Readonly<Record<string, string>>;
}

/** What a session runs under: the launcher to start instead (arguments up to `--`), absent when none; and what it fences. */
export interface Confinement {
  wrap?: { file: string; args: string[] };
  /**
   * Variables to take out of the launcher's environment (its credentials: secret-env.ts). Not bubblewrap's
   * `--unsetenv`: bubblewrap's own process, pid 1 inside the sandbox, keeps the environment it was started with in
   * /proc/1/environ, which the shell reads (a GH_TOKEN unset that way was there).
   */
  unsetEnv?: readonly string[];
  sandbox: SandboxInfo;
}

/** A sandbox that was asked for explicitly and cannot start: the session must not start either. */
export class SandboxUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SandboxUnavailableError';
  }
}

const UNSANDBOXED: SandboxInfo = { profile: 'off', writable: [], hidden: [], network: true };

/**
 * The confinement for a session that starts in `cwd`. Throws SandboxUnavailableError for an explicit profile that cannot
 * start. With `listings`, the directories the policy lists are taken from them, and WaitFirst is thrown until they hold
 * all it needs (listings.ts): the caller lists them off the loop and calls again.
 */
export function confine(choice: SandboxChoice, cwd: string, context: SandboxContext, listings?: Listings): Confinement {
  if (choice.profile === 'off') return { sandbox: UNSANDBOXED };
  const available = sandboxAvailability(choice.profile, context.searchPath);
  if (!available.ok) {
    if (choice.explicit) {
      throw new SandboxUnavailableError(`the ${choice.profile} sandbox cannot start here: ${available.reason}. To fix: ${available.fix}. Nothing was started.`);
    }
    return { sandbox: { ...UNSANDBOXED, unavailable: `${available.reason} (${available.fix})` } };
  }
  let policy;
  try {
    const profile = choice.profile;
    const build = () => sandboxPolicy({ profile, workspace: cwd, home: context.home, ptydeckDirs: context.ptydeckDirs, writable: context.writable, hidden: context.hidden, searchPath: context.searchPath ?? process.env.PATH, readOnlyGit: context.readOnlyGit });
    policy = listings === undefined ? build() : listings.buildFrom(build);
  } catch (error) {
    if (error instanceof WaitFirst) throw error;
    throw new SandboxUnavailableError(`the ${choice.profile} sandbox cannot start in ${cwd}: ${error instanceof Error ? error.message : String(error)}. Pick another working directory.`);
  }
  // HOME's startup files without the lines that set a credential: the shell reads them, and its bash runs them.
  const covers = startupFileCovers(context.home, emptyFile(), context.keepEnv);
  const args = bwrapArgs(policy, { home: context.home, cwd: policy.workspace, keepVisible: context.keepVisible, runtimeDir: context.runtimeDir, setenv: context.loaderEnv, covers });
  // A workspace read-only whole (policy.readOnlyWhy) is bound writable and then read-only over it: not said writable.
  const writable = policy.writable.filter((path) => !(path === policy.workspace && policy.readOnly.includes(path)));
  // Said, so that an agent whose write fails with "Read-only file system" knows why before it tries.
  const readOnly = listed([...(writable.includes(policy.workspace) || policy.readOnly.includes(policy.workspace) ? [] : [policy.workspace]), ...policy.readOnly]);
  const hidden = listed(policy.hidden);
  return {
    wrap: { file: available.bwrap, args: [...args, '--'] },
    ...(context.unsetEnv?.length ? { unsetEnv: context.unsetEnv } : {}),
    sandbox: {
      profile: policy.profile,
      writable,
      hidden: hidden.paths,
      ...(hidden.omitted === 0 ? {} : { hiddenOmitted: hidden.omitted }),
      readOnly: readOnly.paths,
      ...(readOnly.omitted === 0 ? {} : { readOnlyOmitted: readOnly.omitted }),
      ...(policy.readOnlyWhy === undefined ? {} : { readOnlyWhy: policy.readOnlyWhy }),
      network: policy.network,
    },
  };
}

/**
 * The first of `paths` whose characters add up to MAX_SANDBOX_LIST_CHARS, and how many are left out. The read-only and
 * hidden lists name what a shell made in its workspace (a `.vscode` in each of 500 directories with names of 250
 * characters, a socket), and every session's info goes to every panel and `ptydeck attach` in one message: uncut, a
 * shell's few sessions made that message larger than a client takes. The sandbox itself fences every path.
 */
function listed(paths: readonly string[]): { paths: string[]; omitted: number } {
  let chars = 0;
  let count = 0;
  for (const path of paths) {
    if (chars + path.length > MAX_SANDBOX_LIST_CHARS) break;
    chars += path.length;
    count++;
  }
  return { paths: paths.slice(0, count), omitted: paths.length - count };
}
