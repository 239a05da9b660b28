// The agent tool's sessions by owner: the fence that keeps each MCP connection to its own sessions.
import { reportError, type SandboxProfile, type SessionId, type SessionInfo } from '@ptydeck/contract';
import type { PtyService } from '../pty/types.js';
import type { SessionFactsWriter } from '../facts/index.js';
import { AgentTerminal } from './agent-terminal.js';
import { TerminalToolError, noSuchTerminal } from './errors.js';

/** Who is calling: an MCP connection's id (sessions are scoped to it) and its client name. */
export interface TerminalOwner {
  id: string;
  name?: string;
  /** Where its new shells start when a call names no cwd (a chat's agent: the chat's directory). Default ptydeck's own. */
  cwd?: string;
  /** The sandbox profile its client asked for (`ptydeck mcp --sandbox`): the developer's choice, over the configuration's. */
  sandbox?: SandboxProfile;
}

/**
 * The agent tool's sessions by owner (an MCP connection). The fence is here:
 * a caller reaches only its own sessions, and another owner's id gets the
 * same answer as an unknown one, so ids reveal nothing.
 */
export class OwnedSessions {
  private readonly sessions = new Map<SessionId, AgentTerminal>();
  private readonly departed = new Set<string>();

  constructor(
    private readonly service: PtyService,
    /** Where its terminals tell what they learn of their sessions. */
    private readonly facts: SessionFactsWriter,
    /** Live sessions one owner may hold. */
    readonly maxLivePerOwner: number,
    /** Exited sessions kept readable per owner; older ones are evicted. */
    readonly maxExitedPerOwner: number,
    /** Live sessions of departed owners kept running; the oldest are closed past it. */
    readonly maxOrphanedLive: number,
  ) {}

  /** Throws the limit error a model can act on when `owner` may not start another session. */
  checkRoom(owner: string): void {
    if (this.ofOwner(owner).filter((s) => !s.exited).length < this.maxLivePerOwner) return;
    throw new TerminalToolError(
      'limit',
      `Terminal limit reached: ${this.maxLivePerOwner} running terminals per client. Close one with terminal_close (terminal_list shows them), or reuse one with terminal_run {id}.`,
    );
  }

  /**
   * The owner's connection ended: its sessions stay, for the developer, as
   * orphans, of which at most `maxOrphanedLive` keep running.
   */
  markDeparted(owner: string): void {
    if (this.ofOwner(owner).length === 0) return;
    this.departed.add(owner);
    const orphans = this.liveOrphans();
    for (const orphan of orphans.slice(0, Math.max(0, orphans.length - this.maxOrphanedLive))) this.removeQuietly(orphan.id);
  }

  /** The owner is connected again (a chat's agent reconnecting under its chat's id): its sessions are no orphans. */
  markReturned(owner: string): void {
    this.departed.delete(owner);
  }

  /** Ends the oldest live orphan so a connected agent can have its session; false when there is none. */
  async makeRoom(): Promise<boolean> {
    const orphan = this.liveOrphans()[0];
    if (!orphan) return false;
    await this.service.kill(orphan.id, 'SIGKILL').catch(() => undefined);
    this.removeQuietly(orphan.id);
    return true;
  }

  /**
   * Removes the owner's exited sessions past its retention, oldest first: of
   * those this host ran only. A restored one is never removed for another
   * (a planted record may carry the owner's id: LogRetention says why).
   */
  evictExited(owner: string): void {
    const exitedAt = (s: AgentTerminal) => this.service.get(s.id)?.exitedAt ?? 0;
    const exited = this.ofOwner(owner)
      .filter((s) => s.exited && this.service.get(s.id)?.restored !== true)
      .sort((a, b) => exitedAt(a) - exitedAt(b));
    for (const session of exited.slice(0, Math.max(0, exited.length - this.maxExitedPerOwner))) this.removeQuietly(session.id);
  }

  /** Live sessions of owners that have gone, oldest first. */
  private liveOrphans(): AgentTerminal[] {
    return [...this.sessions.values()].filter((s) => this.departed.has(s.ownerId) && !s.exited);
  }

  private removeQuietly(id: string): void {
    this.service.remove(id).catch((error: unknown) => reportError(error, `removing terminal ${id} failed`));
  }

  add(session: AgentTerminal): void {
    this.sessions.set(session.id, session);
  }

  /**
   * Takes back an agent's session an earlier host kept (PtyService.restore),
   * fenced to its owner as before, its read position where the host kept it.
   * Display sessions and the developer's own are not the tool's. Nothing is
   * evicted for it (evictExited).
   */
  adoptRestored(info: SessionInfo, cursor: number | null): void {
    if (info.source !== 'agent' || !info.owner || info.readOnly || this.sessions.has(info.id)) return;
    const session = new AgentTerminal(this.service, this.facts, info.id, info.owner, null, info.cwd);
    session.markRestored(info.status === 'lost', cursor);
    this.add(session);
  }

  /** The owner's read position in a session, for the session store to keep across a restart; null when not the tool's. */
  ownerCursorOf(id: SessionId): number | null {
    const session = this.sessions.get(id);
    return session ? session.cursorOf(session.ownerId) : null;
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

  delete(id: SessionId): AgentTerminal | undefined {
    const session = this.sessions.get(id);
    this.sessions.delete(id);
    if (session && this.ofOwner(session.ownerId).length === 0) this.departed.delete(session.ownerId);
    return session;
  }

  /** Empties the registry and returns what it held. */
  clear(): AgentTerminal[] {
    const all = [...this.sessions.values()];
    this.sessions.clear();
    this.departed.clear();
    return all;
  }
}
