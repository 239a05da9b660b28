import type { SessionId } from '@ptydeck/contract';
import type { AgentTerminal } from './agent-terminal.js';
import { TerminalToolError, noSuchTerminal } from './errors.js';

/**
 * The agent tool's sessions by owner (an MCP connection). The fence is here:
 * a caller reaches only its own sessions, and another owner's id gets the
 * same answer as an unknown one, so ids reveal nothing.
 */
export class OwnedSessions {
  private readonly sessions = new Map<SessionId, AgentTerminal>();

  constructor(
    /** Live sessions one owner may hold. */
    readonly maxLivePerOwner: number,
    /** Exited sessions kept readable per owner; older ones are evicted. */
    readonly maxExitedPerOwner: number,
  ) {}

  /** Throws the limit error a model can act on when `owner` may not start another session. */
  checkRoom(owner: string): void {
    if (this.ofOwner(owner).filter((s) => !s.exited).length < this.maxLivePerOwner) return;
    throw new TerminalToolError(
      'limit',
      `Terminal limit reached: ${this.maxLivePerOwner} running terminals per client. Close one with terminal_close (terminal_list shows them), or reuse one with terminal_run {id}.`,
    );
  }

  add(session: AgentTerminal): void {
    this.sessions.set(session.id, session);
  }

  /** Any owner's session, for routing the service's events. */
  get(id: SessionId): AgentTerminal | undefined {
    return this.sessions.get(id);
  }

  /** The caller's own session, or no_such_terminal. */
  lookup(owner: string, id: string): AgentTerminal {
    const session = this.sessions.get(id);
    if (!session || session.ownerId !== owner) throw noSuchTerminal(id);
    return session;
  }

  ofOwner(owner: string): AgentTerminal[] {
    return [...this.sessions.values()].filter((s) => s.ownerId === owner);
  }

  /** The owner's exited sessions past its retention, oldest first (by `exitedAt`). */
  overRetention(owner: string, exitedAt: (session: AgentTerminal) => number): AgentTerminal[] {
    const exited = this.ofOwner(owner)
      .filter((s) => s.exited)
      .sort((a, b) => exitedAt(a) - exitedAt(b));
    return exited.slice(0, Math.max(0, exited.length - this.maxExitedPerOwner));
  }

  delete(id: SessionId): AgentTerminal | undefined {
    const session = this.sessions.get(id);
    this.sessions.delete(id);
    return session;
  }

  /** Empties the registry and returns what it held. */
  clear(): AgentTerminal[] {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    return all;
  }
}
