// Sandbox profiles for agents' shells, from loosest to strictest.

/** `off`: as the developer. `workspace`: writes only in the workspace, secrets hidden, network on. `workspace-offline`: the same with no network. */
export const SANDBOX_PROFILES = ['off', 'workspace', 'workspace-offline'] as const;
export type SandboxProfile = (typeof SANDBOX_PROFILES)[number];

/** The profile agents' sessions get when nothing names one: where it cannot start, the session runs unsandboxed and says so. */
export const DEFAULT_AGENT_PROFILE: SandboxProfile = 'workspace';

export function isSandboxProfile(value: unknown): value is SandboxProfile {
  return typeof value === 'string' && (SANDBOX_PROFILES as readonly string[]).includes(value);
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
