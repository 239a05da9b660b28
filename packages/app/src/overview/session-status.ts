// What an overview row says a session is doing (running, idle, needs input, exited), from the session's own
// marks.
import type { SessionInfo } from '@ptydeck/contract';
import { waitingFor } from '../terminal/deck-reducer.js';
import { endedBadly, exitLabel } from '../terminal/tab-label.js';

/** What an overview row says a session is doing. */
export interface SessionStatus {
  state: 'exited' | 'lost' | 'unknown' | 'needs-input' | 'idle' | 'running';
  label: string;
  /** How an idle shell's last command ended ("last exit 1"); null otherwise, or before any command finished. */
  lastExit: string | null;
  /** Worth red: the session ended badly, or an idle shell's last command failed. */
  failed: boolean;
}

/**
 * A session's status for the overview. A live shell is running only while it
 * runs a command: back at its prompt it is idle, whatever its title (the
 * command it was opened for) says. A program whose commands nobody follows
 * (a shell without marks: zsh, or a developer's tab with the integration off) is running while its process is.
 */
export function sessionStatus(session: SessionInfo, offline: boolean): SessionStatus {
  if (session.status === 'exited') return { state: 'exited', label: exitLabel(session), lastExit: null, failed: endedBadly(session) };
  // Known whether or not the panel is connected: the host that restored it says its process is gone.
  if (session.status === 'lost') return { state: 'lost', label: 'lost', lastExit: null, failed: false };
  // While disconnected, a running session's state is what it was, not what it is.
  if (offline) return { state: 'unknown', label: 'unknown', lastExit: null, failed: false };
  if (waitingFor(session)) return { state: 'needs-input', label: 'needs input', lastExit: null, failed: false };
  const shell = session.shell;
  if (shell?.state === 'idle') {
    const code = shell.lastExitCode;
    return { state: 'idle', label: 'idle', lastExit: code === null ? null : `last exit ${code}`, failed: code !== null && code !== 0 };
  }
  return { state: 'running', label: 'running', lastExit: null, failed: false };
}
