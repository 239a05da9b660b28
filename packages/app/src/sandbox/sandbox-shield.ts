// What a session's shield says: the sandbox profile it runs under, and on hover what the sandbox lets it reach.
import type { SandboxInfo, SandboxProfile } from '@ptydeck/contract';
import { shownText } from '../lib/shown-text.js';

export interface SandboxShield {
  /** `unsandboxed`: a default sandbox was wanted but could not start, so the shell runs as the developer. */
  kind: Exclude<SandboxProfile, 'off'> | 'unsandboxed';
  /** Shown beside the shield. */
  label: string;
  /** The hover text: writable paths, hidden paths, the network; or why there is no sandbox. */
  title: string;
}

/**
 * The shield for a session, or null for none: the developer's own tabs carry
 * no sandbox, and an agent the developer runs with `--sandbox off` on purpose
 * gets no mark. A default sandbox that could not start is marked, since the
 * developer may think the agent fenced when it is not.
 */
export function sandboxShield(sandbox: SandboxInfo | null | undefined): SandboxShield | null {
  if (!sandbox) return null;
  if (sandbox.profile === 'off') {
    if (!sandbox.unavailable) return null;
    return {
      kind: 'unsandboxed',
      label: 'unsandboxed',
      title: `Runs unsandboxed: the default workspace sandbox could not start here (${sandbox.unavailable}). This shell can read and write what you can. \`ptydeck sandbox check\` says more.`,
    };
  }
  const network = sandbox.network
    ? 'Network: on (every loopback service and abstract Unix socket on this machine is reachable)'
    : 'Network: off (not even loopback)';
  return {
    kind: sandbox.profile,
    label: sandbox.profile,
    title: [
      `Sandbox: ${sandbox.profile}`,
      `Writable: ${list(sandbox.writable)}`,
      ...(sandbox.readOnly?.length ? [`Read-only: ${list(sandbox.readOnly, sandbox.readOnlyOmitted)}`] : []),
      ...(sandbox.readOnlyWhy ? [`The working directory is read-only: ${shownText(sandbox.readOnlyWhy)}`] : []),
      `Hidden: ${list(sandbox.hidden, sandbox.hiddenOmitted)}`,
      network,
    ].join('\n'),
  };
}

/** The distinct shields of an agent's sessions, in the order they first appear: the profiles its shells run under. */
export function agentShields(sandboxes: ReadonlyArray<SandboxInfo | null | undefined>): SandboxShield[] {
  const shields = new Map<string, SandboxShield>();
  for (const sandbox of sandboxes) {
    const shield = sandboxShield(sandbox);
    if (shield && !shields.has(shield.kind)) shields.set(shield.kind, shield);
  }
  return [...shields.values()];
}

function list(paths: readonly string[], omitted = 0): string {
  // Paths an agent's shell may have named (directories it made in its workspace): drawn with their invisible and
  // direction-changing characters escaped, as tab titles are. The host lists the first of a long list and counts the rest.
  const more = omitted > 0 ? [`and ${omitted} more`] : [];
  return paths.length === 0 && more.length === 0 ? 'none' : [...paths.map(shownText), ...more].join(', ');
}
