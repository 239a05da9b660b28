// The developer's sandbox settings, from ptydeck's config.json, and the profile each agent's shells get.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { parseJsonAs, SandboxProfile } from '@ptydeck/contract';
import { z } from 'zod';
import { confine, SandboxUnavailableError, type Confinement, type SandboxContext } from './confine.js';
import type { Listings } from './listings.js';
import { DEFAULT_HIDDEN } from './policy.js';
import { secretNames } from './secret-env.js';
import { DEFAULT_AGENT_PROFILE, isAtLeastAsStrict, SANDBOX_PROFILES, type SandboxChoice, type SandboxProfile as Profile } from './profile.js';

/**
 * config.json's "sandbox" section. Lives in ptydeck's config directory, which
 * a sandboxed shell cannot see, so an agent cannot loosen its own fence.
 */
export const SandboxConfig = z
  .object({
    default: SandboxProfile.optional().describe("Agents' shells' profile when neither --sandbox nor agents names one. Default workspace, where bubblewrap works."),
    agents: z.record(z.string().min(1), SandboxProfile).default({}).describe('A profile per agent name (the MCP client\'s name, or a chat agent\'s name in agents.json).'),
    writable: z
      .array(z.string().refine(isAbsolute, 'writable paths must be absolute'))
      .default([])
      .describe('More paths sandboxed shells may write, besides their working directory, /tmp and the package caches.'),
    hide: z.array(z.string().min(1)).default([]).describe('More paths to hide, besides the built-in list: absolute, or relative to HOME.'),
    unhide: z
      .array(
        z.string().refine((path) => (DEFAULT_HIDDEN as readonly string[]).includes(path), {
          error: (issue) => `unhide names ${JSON.stringify(issue.input)}, which is not in the built-in hidden list; it takes an entry as that list spells it (relative to HOME, e.g. ".npmrc", or absolute): ${DEFAULT_HIDDEN.join(', ')}`,
        }),
      )
      .default([])
      .describe(
        'Entries of the built-in hidden list to show read-only after all (e.g. ".npmrc" for a private registry), spelled as that list spells them. ptydeck\'s own directories stay hidden, and so does anything `hide` names.',
      ),
    readOnlyGit: z
      .boolean()
      .default(false)
      .describe(
        "Every repository's .git in a sandboxed shell's working directory read-only, as Codex's workspace-write has it: commits, checkouts and fetches fail inside, and nothing the shell does there reaches your next git (a rebase left in progress, a gitlink to a repository of its own). Default false: commits work inside.",
      ),
    keepEnv: z
      .array(z.string().min(1))
      .default([])
      .describe(
        'Variables of the environment that look like credentials (GH_TOKEN, AWS_SECRET_ACCESS_KEY, *_API_KEY, a URL with a password) to pass into sandboxed shells after all; every other such variable is unset there.',
      ),
  })
  .strict();
export type SandboxConfig = z.infer<typeof SandboxConfig>;

/** The file's section, or the defaults when the file or the section is missing; a broken one throws with what is wrong. */
export function readSandboxConfig(configDir: string): SandboxConfig {
  const path = join(configDir, 'config.json');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return SandboxConfig.parse({});
    throw new Error(`${path}: ${(error as Error).message}`);
  }
  const parsed = parseJsonAs(z.object({ sandbox: SandboxConfig.optional() }).passthrough(), text);
  if (!parsed.ok) throw new Error(`${path}: ${parsed.error}`);
  return parsed.value.sandbox ?? SandboxConfig.parse({});
}

/** Who an owner is, for choosing its profile. */
export interface SandboxOwner {
  name?: string;
  /** Its client's `--sandbox`: the developer's word for this one agent. */
  sandbox?: SandboxProfile;
}

/**
 * The profile an owner's shells get: its client's `--sandbox`, else the
 * configuration's for its name, else the configuration's default (each of
 * these explicit: one that cannot start fails the shell), else the built-in
 * default (where it cannot start, the shell runs unsandboxed and says so).
 */
export function choiceFor(owner: SandboxOwner, config: SandboxConfig): SandboxChoice {
  if (owner.sandbox) return { profile: owner.sandbox, explicit: true };
  const named = owner.name === undefined ? undefined : config.agents[owner.name];
  if (named) return { profile: named, explicit: true };
  if (config.default) return { profile: config.default, explicit: true };
  return { profile: DEFAULT_AGENT_PROFILE, explicit: false };
}

/**
 * What every sandbox on this host is built from, but for what each session's
 * inherited environment says (its HOME, PATH and runtime directory: confineSession).
 */
export function sandboxContext(options: { stateDir: string; configDir: string; config: SandboxConfig }): HostSandboxContext {
  return {
    ptydeckDirs: [options.stateDir, options.configDir],
    writable: options.config.writable,
    hidden: [...DEFAULT_HIDDEN.filter((path) => !options.config.unhide.includes(path)), ...options.config.hide],
    keepEnv: options.config.keepEnv,
    ...(options.config.readOnlyGit ? { readOnlyGit: true } : {}),
  };
}

/** A SandboxContext less what comes from the session's environment. */
export type HostSandboxContext = Omit<SandboxContext, 'home' | 'runtimeDir' | 'searchPath' | 'keepVisible' | 'unsetEnv'>;

/** How agents' shells are fenced on a host: what the terminal tool and the chats' terminals both follow. */
export interface SandboxSettings {
  /**
   * The profile an owner's shells get unless a call tightens it (its client's,
   * the configuration's, or the built-in default), and what its sandbox is
   * built from, as the configuration says now.
   */
  forOwner(owner: SandboxOwner): { choice: SandboxChoice; context: HostSandboxContext };
}

/**
 * A session about to start: the environment it inherits (the developer's, never
 * the variables its caller adds: an agent names those, and HOME, PATH or
 * XDG_RUNTIME_DIR would move the fence), and its working directory.
 */
export interface SessionSpawn {
  env: Readonly<Record<string, string>>;
  cwd: string;
  /** The session's dynamic loader variables (LD_*): bubblewrap starts without them and sets them for the program. */
  loaderEnv?: Readonly<Record<string, string>>;
}

/**
 * The sandbox a new session of `owner` runs in: the owner's profile, or a
 * stricter one the call asks for (never a looser one), built around the
 * HOME, PATH and runtime directory the session inherits. Throws
 * SandboxUnavailableError, with a message an agent can act on, for a looser
 * request and for an explicit profile that cannot start: the session is then
 * not started at all. With `listings`, WaitFirst until they hold what the policy lists (confine).
 */
export function confineSession(settings: SandboxSettings, owner: SandboxOwner, requested: Profile | undefined, spawn: SessionSpawn, keepVisible: string[] = [], listings?: Listings): Confinement {
  const { choice: base, context } = settings.forOwner(owner);
  if (requested !== undefined && !isAtLeastAsStrict(requested, base.profile)) {
    throw new SandboxUnavailableError(
      `sandbox "${requested}" is looser than your profile "${base.profile}", which the developer set; you may only ask for a stricter one (${SANDBOX_PROFILES.filter((p) => isAtLeastAsStrict(p, base.profile)).join(', ')}). Nothing was started.`,
    );
  }
  const choice = requested === undefined ? base : { profile: requested, explicit: true };
  const uid = process.getuid?.();
  const runtimeDir = spawn.env.XDG_RUNTIME_DIR || (uid === undefined ? undefined : `/run/user/${uid}`);
  const { keepEnv, ...built } = context;
  return confine(choice, spawn.cwd, {
    ...built,
    unsetEnv: secretNames(spawn.env, keepEnv),
    ...(keepEnv ? { keepEnv } : {}),
    home: spawn.env.HOME || homedir(),
    keepVisible,
    ...(runtimeDir ? { runtimeDir } : {}),
    ...(spawn.env.PATH ? { searchPath: spawn.env.PATH } : {}),
    ...(spawn.loaderEnv ? { loaderEnv: spawn.loaderEnv } : {}),
  }, listings);
}
