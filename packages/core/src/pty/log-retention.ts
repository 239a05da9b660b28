/**
 * What the PTY service keeps of its sessions' output and of exited sessions:
 * each log trimmed to its own cap, all logs together to a global one
 * (exited sessions' first, then the running session holding the most), and
 * exited sessions kept per owner up to a count, beyond which the oldest are
 * evicted. Sessions restored from an earlier host's records have their logs
 * trimmed like exited ones but are never evicted: nothing tells a record the
 * developer's tab left from one planted beside it, so a planted one must not
 * push a real one out (the store bounds how many come back). Keeps the byte
 * total and the exit order; the service says when output arrives, a session
 * exits, is restored or is forgotten, and evicts on request.
 */
import type { PtySession } from './pty-session.js';

export interface RetentionLimits {
  sessionLogBytes: number;
  totalLogBytes: number;
  maxExitedSessions: number;
  maxExitedTotal: number;
}

export class LogRetention {
  /** Exited sessions, oldest exit first: retention evicts and the global cap trims from the front. */
  private exitedOrder: PtySession[] = [];
  /** Restored sessions, in the order they came back: trimmed after the exited ones, never evicted. */
  private restoredOrder: PtySession[] = [];
  private totalBytes = 0;

  constructor(
    private readonly limits: RetentionLimits,
    /** Every session the service holds, in creation order. */
    private readonly sessions: ReadonlyMap<string, PtySession>,
    /** Ends and forgets an exited session retention no longer keeps (the service calls forgotten() for it). */
    private readonly evict: (session: PtySession) => void,
  ) {}

  /** `bytes` of output entered the session's log. */
  appended(session: PtySession, bytes: number): void {
    const log = session.log;
    this.totalBytes += bytes;
    if (log.size > this.limits.sessionLogBytes) this.totalBytes -= log.trimTo(this.limits.sessionLogBytes);
    if (this.totalBytes > this.limits.totalLogBytes) this.trimGlobal();
  }

  /** The session exited: it is kept, oldest exit first, until enforce() evicts it. */
  exited(session: PtySession): void {
    this.exitedOrder.push(session);
  }

  /** The session came back from an earlier host's record: its log is trimmed with the exited ones', it is never evicted. */
  restored(session: PtySession): void {
    this.restoredOrder.push(session);
  }

  /** The session is gone from the service: its log's bytes no longer count. */
  forgotten(session: PtySession): void {
    this.totalBytes -= session.log.clear();
    this.exitedOrder = this.exitedOrder.filter((other) => other !== session);
    this.restoredOrder = this.restoredOrder.filter((other) => other !== session);
  }

  /**
   * Evicts what is over the limits once `session` exited. Exited sessions
   * are kept per owner, so one owner's churn never evicts another's history;
   * a global bound, past which the owner holding the most gives up its
   * oldest, keeps many owners from adding up without end.
   */
  enforce(session: PtySession): void {
    const key = retentionKey(session);
    const own = this.exitedOrder.filter((other) => retentionKey(other) === key);
    for (const other of own.slice(0, Math.max(0, own.length - this.limits.maxExitedSessions))) this.evict(other);
    while (this.exitedOrder.length > this.limits.maxExitedTotal) {
      const counts = new Map<string, number>();
      for (const other of this.exitedOrder) counts.set(retentionKey(other), (counts.get(retentionKey(other)) ?? 0) + 1);
      const [largest] = [...counts.entries()].reduce((a, b) => (b[1] > a[1] ? b : a));
      this.evict(this.exitedOrder.find((other) => retentionKey(other) === largest)!);
    }
  }

  /**
   * Trims until under the global cap: the oldest exited sessions first, then
   * the running session retaining the most bytes. Largest, not oldest: during
   * a flood the oldest running session is often an interactive shell holding a
   * few KiB, and trimming it forced its viewer to resync on every trim while
   * the flooding sessions kept megabytes.
   */
  private trimGlobal(): void {
    const cap = this.limits.totalLogBytes;
    for (const session of [...this.exitedOrder, ...this.restoredOrder]) {
      if (this.totalBytes <= cap) return;
      this.totalBytes -= session.log.trimBy(this.totalBytes - cap);
    }
    while (this.totalBytes > cap) {
      // A scan per trim: at most a few dozen live sessions, against a chunk append that already costs more.
      let largest: PtySession | undefined;
      for (const session of this.sessions.values()) {
        if (session.running && session.log.size > (largest?.log.size ?? 0)) largest = session;
      }
      // trimBy drops at least one byte of a non-empty log, so this ends.
      if (!largest) return;
      this.totalBytes -= largest.log.trimBy(this.totalBytes - cap);
    }
  }
}

/** Whose history an exited session counts against: its agent connection, or the developer. */
function retentionKey(session: PtySession): string {
  return session.info.owner ?? `source:${session.info.source}`;
}
