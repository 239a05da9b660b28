import type { SessionId, SessionInfo } from '@ptydeck/contract';
import { ScreenMirror } from '../agent/screen-mirror.js';
import type { PtyService } from '../pty/types.js';

/** Scrollback kept in each mirror; a resync restores this much history. */
const MIRROR_SCROLLBACK = 1000;
/** Largest slice fed to a mirror at once: the parser never queues more than this per session. */
const MIRROR_CHUNK = 256 * 1024;

export interface ScreenSnapshot {
  /** Serialized screen and scrollback, to be written into a reset terminal. */
  screen: string;
  /** Absolute cursor one past the last byte the screen reflects. */
  cursor: number;
}

/**
 * A headless terminal per session that follows its output, so a viewer that
 * reloads or falls behind can be handed the screen instead of megabytes of
 * history. The mirror pulls from the session log rather than buffering pushed
 * chunks: under a flood it parses in bounded slices and can never hold more
 * than one slice beyond the log itself.
 */
class SessionMirror {
  private readonly mirror: ScreenMirror;
  /** Cursor one past the last byte parsed. */
  private parsed = 0;
  private busy = false;
  private disposed = false;
  private waiters: Array<() => void> = [];

  constructor(
    private readonly service: PtyService,
    readonly id: SessionId,
    cols: number,
    rows: number,
  ) {
    this.mirror = new ScreenMirror({ cols, rows, scrollback: MIRROR_SCROLLBACK });
  }

  /** Feeds whatever the log holds past the parsed cursor, one slice at a time. */
  pump(): void {
    if (this.busy || this.disposed) return;
    let slice;
    try {
      slice = this.service.read(this.id, { cursor: this.parsed, maxBytes: MIRROR_CHUNK });
    } catch {
      return; // removed meanwhile; pty.removed disposes us
    }
    if (slice.data.length === 0) {
      this.parsed = slice.next;
      this.flushWaiters();
      return;
    }
    this.busy = true;
    const next = slice.next;
    void this.mirror.write(slice.data).then(() => {
      // Only this pump writes, one slice at a time, so nothing was parsed after
      // this slice: a snapshot taken now reflects exactly [.., next).
      this.parsed = next;
      this.busy = false;
      this.flushWaiters();
      this.pump();
    });
  }

  resize(cols: number, rows: number): void {
    if (cols !== this.mirror.cols || rows !== this.mirror.rows) this.mirror.resize(cols, rows);
  }

  /** The screen as of a slice boundary: now if idle, else when the slice in the parser finishes. */
  snapshot(): Promise<ScreenSnapshot> {
    if (this.disposed) return Promise.resolve({ screen: '', cursor: this.parsed });
    if (!this.busy) this.pump();
    if (!this.busy) return Promise.resolve(this.take());
    return new Promise((resolve) => this.waiters.push(() => resolve(this.take())));
  }

  dispose(): void {
    this.disposed = true;
    this.flushWaiters();
    this.mirror.dispose();
  }

  private take(): ScreenSnapshot {
    if (this.disposed) return { screen: '', cursor: this.parsed };
    return { screen: this.mirror.serialize({ scrollback: MIRROR_SCROLLBACK }), cursor: this.parsed };
  }

  private flushWaiters(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter();
  }
}

/** Keeps one mirror per session of a service, created and disposed with the sessions. */
export class SessionMirrors {
  private readonly mirrors = new Map<SessionId, SessionMirror>();
  private readonly unsubscribe: Array<() => void>;

  constructor(private readonly service: PtyService) {
    this.unsubscribe = [
      service.on('pty.created', (e) => this.ensure(e.info)),
      service.on('pty.updated', (e) => this.ensure(e.info).resize(e.info.cols, e.info.rows)),
      service.on('pty.data', (e) => this.mirrors.get(e.id)?.pump()),
      service.on('pty.removed', (e) => {
        this.mirrors.get(e.id)?.dispose();
        this.mirrors.delete(e.id);
      }),
    ];
    for (const info of service.list()) this.ensure(info).pump();
  }

  snapshot(id: SessionId): Promise<ScreenSnapshot> {
    const info = this.service.get(id);
    if (!info) return Promise.resolve({ screen: '', cursor: 0 });
    return this.ensure(info).snapshot();
  }

  dispose(): void {
    for (const off of this.unsubscribe) off();
    for (const mirror of this.mirrors.values()) mirror.dispose();
    this.mirrors.clear();
  }

  private ensure(info: SessionInfo): SessionMirror {
    let mirror = this.mirrors.get(info.id);
    if (!mirror) {
      mirror = new SessionMirror(this.service, info.id, info.cols, info.rows);
      this.mirrors.set(info.id, mirror);
    }
    return mirror;
  }
}
