// Sandboxed agent shells: profiles, what each allows, and bubblewrap's command line for it.
export { DEFAULT_AGENT_PROFILE, SANDBOX_PROFILES, isAtLeastAsStrict, isSandboxProfile, parseSandboxProfile, type SandboxChoice, type SandboxProfile } from './profile.js';
export { DEFAULT_CACHES, DEFAULT_HIDDEN, sandboxPolicy, type PolicyInput, type SandboxPolicy } from './policy.js';
export { bwrapArgs, type BwrapOptions } from './bwrap-args.js';
export { sandboxAvailability, type Availability } from './availability.js';
export { confine, SandboxUnavailableError, type Confinement, type SandboxContext } from './confine.js';
export { SandboxConfig, choiceFor, confineSession, readSandboxConfig, sandboxContext, type HostSandboxContext, type SandboxOwner, type SandboxSettings, type SessionSpawn } from './sandbox-config.js';
export { EMPTY_FILE_DIR, removeEmptyFile } from './empty-file.js';
export { Listings } from './listings.js';
