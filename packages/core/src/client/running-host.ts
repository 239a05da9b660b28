// The running host a panel-scoped command (`ls`, `status`, `attach`) talks to, and the one line it says when refused.
import { resolveStateDir, UnsafeStateError, type DiscoveryRecord } from '../common/discovery.js';
import { ensureHost, HostProtocolError, UntrustedHostError } from './ensure-host.js';

/**
 * The running host of `stateDir`, found through server.json and proven
 * (never started: there is nothing to list or attach to in a new one).
 * Throws an Error with a one-line message when none runs or it speaks
 * another host protocol.
 */
export async function runningHost(stateDir: string = resolveStateDir()): Promise<DiscoveryRecord> {
  const { record } = await ensureHost({ stateDir, start: false, log: () => undefined }).catch((error: Error) => {
    // A host of another protocol, or a state directory others could write, say themselves what to do.
    throw error instanceof HostProtocolError || error instanceof UnsafeStateError || error instanceof UntrustedHostError
      ? error
      : new Error(`${error.message}; start one with \`ptydeck\``);
  });
  return record;
}

/** What `command` says when the host judged it to run inside a ptydeck session. */
export function refusedInside(command: string): Error {
  return new Error(
    `\`${command}\` is refused inside a ptydeck session (an agent's shell, or a tab of the panel): it needs the panel's scope, which ptydeck gives only to a terminal of your own. Run it outside ptydeck.`,
  );
}
