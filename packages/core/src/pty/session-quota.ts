/**
 * How many sessions may run at once, and whose: a cap on running sessions
 * with a share kept for the developer that agents cannot take, and a
 * separate cap on display-only sessions (no process, but each holds a log).
 * Counts what runs; the service asks before it starts a session and reports
 * each start and end.
 */
import type { SessionSource } from '@ptydeck/contract';
import { PtyError } from './types.js';

export interface QuotaLimits {
  maxLiveSessions: number;
  reservedUserSessions: number;
  maxDisplaySessions: number;
}

export class SessionQuota {
  private live = 0;
  private liveAgents = 0;
  private liveDisplays = 0;

  constructor(private readonly limits: QuotaLimits) {}

  /** Throws session_limit when a session from `source` may not start now. */
  checkSpawn(source: SessionSource): void {
    const { maxLiveSessions, reservedUserSessions } = this.limits;
    if (this.live >= maxLiveSessions) {
      throw new PtyError('session_limit', `too many running sessions (limit ${maxLiveSessions}); close one first`);
    }
    const agentShare = Math.max(0, maxLiveSessions - reservedUserSessions);
    if (source === 'agent' && this.liveAgents >= agentShare) {
      throw new PtyError(
        'session_limit',
        `agents hold all ${agentShare} running sessions they may have (${reservedUserSessions} of ${maxLiveSessions} are kept for the developer); close one first`,
      );
    }
  }

  /** Throws session_limit when no more display-only sessions may open now. */
  checkDisplay(): void {
    if (this.liveDisplays >= this.limits.maxDisplaySessions) {
      throw new PtyError('session_limit', `too many display-only sessions open (limit ${this.limits.maxDisplaySessions}); end one first`);
    }
  }

  spawned(source: SessionSource): void {
    this.live++;
    if (source === 'agent') this.liveAgents++;
  }

  exited(source: SessionSource): void {
    this.live--;
    if (source === 'agent') this.liveAgents--;
  }

  displayOpened(): void {
    this.liveDisplays++;
  }

  displayEnded(): void {
    this.liveDisplays--;
  }
}
