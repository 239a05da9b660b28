// Pids as the agent's own shell sees them: a sandboxed shell has a PID namespace of its own.
import type { SessionInfo } from '@ptydeck/contract';
import { namespacePids } from '../proc/proc-fs.js';

/**
 * The pid the session's shell uses for the process the host knows as `pid`
 * (`$!`, `ps`, `kill`), or undefined for one it cannot see (the sandbox's
 * launcher, or a process already gone).
 */
export type PidView = (pid: number) => number | undefined;

const hostView: PidView = (pid) => pid;

/** How many PID namespaces deep the host runs: the sandbox's (bubblewrap's --unshare-pid) is the next one down. */
let hostDepth: number | undefined;

/**
 * A process's pid in the sandbox's PID namespace: the entry of its NSpid one
 * below the host's own, so a process the agent put in a namespace of its own
 * (unshare, a nested bwrap) still gets the pid its sandboxed shell sees.
 */
const sandboxView: PidView = (pid) => {
  hostDepth ??= namespacePids('self')?.length ?? 1;
  return namespacePids(pid)?.[hostDepth];
};

/** The view for a session: a sandboxed one's pids are read from its namespace, anyone else's are the host's. */
export function pidViewOf(sandboxed: boolean): PidView {
  return sandboxed ? sandboxView : hostView;
}

/** Whether the session's shell runs in a sandbox, so in a PID namespace of its own. */
export function isSandboxed(info: Pick<SessionInfo, 'sandbox'> | undefined): boolean {
  return info?.sandbox != null && info.sandbox.profile !== 'off';
}
