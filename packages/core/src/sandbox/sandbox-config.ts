// The developer's sandbox settings, from ptydeck's config.json, and the profile each agent's shells get.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { parseJsonAs, SandboxProfile } from '@ptydeck/contract';
import { z } from 'zod';
import type { SandboxContext } from './confine.js';
import { DEFAULT_HIDDEN } from './policy.js';
import { DEFAULT_AGENT_PROFILE, type SandboxChoice } from './profile.js';

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

/** What every sandbox on this host is built from: the host's HOME, its own directories, the configuration's paths. */
export function sandboxContext(options: { stateDir: string; configDir: string; config: SandboxConfig; env?: Record<string, string | undefined> }): SandboxContext {
  const env = options.env ?? process.env;
  const home = env.HOME || homedir();
  const uid = process.getuid?.();
  return {
    home,
    ptydeckDirs: [options.stateDir, options.configDir],
    writable: options.config.writable,
    hidden: [...DEFAULT_HIDDEN, ...options.config.hide],
    ...(env.XDG_RUNTIME_DIR ? { runtimeDir: env.XDG_RUNTIME_DIR } : uid !== undefined ? { runtimeDir: `/run/user/${uid}` } : {}),
    ...(env.PATH ? { searchPath: env.PATH } : {}),
  };
}
