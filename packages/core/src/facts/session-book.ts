// The sessions the process watch scans, and the names of removed ones, so what they left running is listed by name.
import { DisposableStore, type SessionId, type SessionInfo, type SessionSource } from '@ptydeck/contract';
import type { PtyService } from '../pty/types.js';
import type { SessionRef } from '../pty/session-processes.js';

/** A session as the process watch scans it, and names it in the overview. */
export interface BookedSession {
  ref: SessionRef;
  title: string;
  source: SessionSource;
  ownerName: string | null;
  /** False once the service removed it (its tab closed): kept only to name what it left running. */
  known: boolean;
}

/**
 * Removed sessions whose names are kept for what they left running. What a
 * closed tab's `nohup` job is found by is the id in its environment, with or
 * without its name (a scan lists it under the id past this bound, or after a
 * host restart); a name is kept until a scan finds nothing left under it, and
 * past this many the oldest are forgotten first.
 */
const MAX_DEPARTED = 64;

/**
 * The sessions whose processes the panel is shown: the service's (display
 * sessions aside, they run nothing), and the names of those it removed, whose
 * detached jobs outlive them. Follows the service's events, never its output.
 */
export class SessionBook {
  /** What the service last said of each session, by id: a removal event carries only the id. */
  private readonly infos = new Map<SessionId, SessionInfo>();
  private readonly departed = new Map<SessionId, BookedSession>();
  private readonly subscriptions = new DisposableStore();

  constructor(
    private readonly service: PtyService,
    /** Called when a session exits or is removed: what it leaves running is news. */
    onEnded: () => void,
  ) {
    for (const info of service.list()) this.note(info);
    this.subscriptions.add(service.on('pty.created', (event) => this.note(event.info)));
    this.subscriptions.add(service.on('pty.updated', (event) => this.note(event.info)));
    this.subscriptions.add(
      service.on('pty.exited', (event) => {
        this.note(event.info);
        onEnded();
      }),
    );
    this.subscriptions.add(
      service.on('pty.removed', (event) => {
        const info = this.infos.get(event.id);
        this.infos.delete(event.id);
        if (!info) return;
        // No pid: once its tab is closed, what a session left is known by the id in its environment alone, as after a restart.
        this.departed.set(event.id, { ...booked(info), known: false, ref: { id: info.id, pid: 0, running: false } });
        for (const id of this.departed.keys()) {
          if (this.departed.size <= MAX_DEPARTED) break;
          this.departed.delete(id);
        }
        onEnded();
      }),
    );
  }

  /** The service's sessions to scan, in creation order. */
  sessions(): BookedSession[] {
    return [...this.infos.values()].map(booked);
  }

  /** One of the service's sessions, or a removed one by the name it had. */
  get(id: SessionId): BookedSession | undefined {
    const info = this.infos.get(id);
    return info ? booked(info) : this.departed.get(id);
  }

  /** Forgets the names of removed sessions but those of `ids`: a scan found nothing left of the others. */
  retainDeparted(ids: ReadonlySet<SessionId>): void {
    for (const id of this.departed.keys()) if (!ids.has(id)) this.departed.delete(id);
  }

  dispose(): void {
    this.subscriptions.dispose();
  }

  private note(info: SessionInfo): void {
    // No process of ours behind a display session (pid 0); a lost one's pid names a process of an earlier host.
    if (info.readOnly || info.pid <= 0 || info.status === 'lost') return;
    this.infos.set(info.id, info);
  }
}

function booked(info: SessionInfo): BookedSession {
  return {
    ref: { id: info.id, pid: info.pid, running: info.status === 'running' },
    title: info.title,
    source: info.source,
    ownerName: info.ownerName,
    known: true,
  };
}
