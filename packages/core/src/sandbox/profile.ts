// Sandbox profiles for agents' shells, from loosest to strictest.
import { SandboxProfile } from '@ptydeck/contract';

export type { SandboxProfile } from '@ptydeck/contract';
export const SANDBOX_PROFILES = SandboxProfile.options;

/** The profile agents' sessions get when nothing names one: where it cannot start, the session runs unsandboxed and says so. */
export const DEFAULT_AGENT_PROFILE: SandboxProfile = 'workspace';

export function isSandboxProfile(value: unknown): value is SandboxProfile {
  return SandboxProfile.safeParse(value).success;
}

/** Parses a profile name given by a person or a file, with an error that lists the names. */
export function parseSandboxProfile(value: string, where: string): SandboxProfile {
  if (isSandboxProfile(value)) return value;
  throw new Error(`${where}: unknown sandbox profile ${JSON.stringify(value)}; use one of ${SANDBOX_PROFILES.join(', ')}`);
}

/** Whether `candidate` fences at least as much as `base`: an agent may tighten its profile, never loosen it. */
export function isAtLeastAsStrict(candidate: SandboxProfile, base: SandboxProfile): boolean {
  return SANDBOX_PROFILES.indexOf(candidate) >= SANDBOX_PROFILES.indexOf(base);
}

/**
 * A profile and who asked for it. An explicit one (the developer's `--sandbox`
 * or configuration, or the agent tightening it) that cannot start fails the
 * session; the built-in default that cannot start leaves it unsandboxed, said so.
 */
export interface SandboxChoice {
  profile: SandboxProfile;
  explicit: boolean;
}
