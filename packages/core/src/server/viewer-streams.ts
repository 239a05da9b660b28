/**
 * The output half of a panel connection: every session the panel views,
 * streamed from that viewer's own cursor in binary frames. The PTY is never
 * paused for a viewer: each gets at most its window (ViewerWindow: ACK_WINDOW
 * or more, as much as it parses in TARGET_DELAY_MS) ahead of what it
 * acknowledged as parsed and, once too far behind the log, is handed the
 * mirrored screen and told what it skipped. Floods are coalesced into large
 * frames, and streaming stops while the socket's backlog drains.
 */
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { OUTPUT_FRAME_HEAD_ROOM, writeOutputFrameHead, type PanelServerMessage, type SessionId } from '@ptydeck/contract';
import { BufferPool } from '../pty/buffer-pool.js';
import { PtyError, type PtyService } from '../pty/types.js';
import { ScreenLostError, type ScreenService, type ScreenSnapshot } from '../screen/index.js';
import { ViewerWindow } from './viewer-window.js';
import { PumpSchedule } from './pump-schedule.js';

/** Output bytes per binary frame. */
const FRAME_BYTES = 64 * 1024;
/**
 * Output bytes per frame when no more than this is there to send. A flood's
 * coalesced frames carry a few KiB each (what the floods being read add in
 * COALESCE_MS in pump-schedule.ts), and a frame's buffer stays in flight until the socket wrote
 * it. When every frame held FRAME_BYTES, a backlog of small frames outgrew
 * the spares, and each frame past them was a new buffer: a mapping, its pages
 * faulted in by the copy, unmapped by a later GC, and new external memory,
 * which starts V8's full GCs; all in the pump's turn, while a typed key's echo
 * waited (bench/README.md, "Frames sized to what they carry").
 */
const SMALL_FRAME_BYTES = 16 * 1024;
/**
 * A viewer whose acknowledged cursor trails the log's head by more than this,
 * or by more than twice its window when that is larger, is resynced instead
 * of replayed.
 */
export const LAG_LIMIT = 1024 * 1024;
/**
 * Least time between a lagging viewer's restore and its next resync: each
 * one makes the session's mirror parse everything up to the head at full
 * speed, which a flood cannot afford on every ack.
 */
const RESYNC_GAP_MS = 200;
/**
 * A restored viewer the flood has run far ahead of (see restore) continues
 * from the first line start in this much of the log's newest output: enough
 * to repaint a screen of colored lines, little enough to leave it streaming,
 * not lagging.
 */
const RESUME_TAIL = 64 * 1024;
/** Socket backlog at which streaming to all viewers stops until it drains (control messages, many sessions). */
const HIGH_WATER = 1024 * 1024;
/** Backlog under which a stalled socket resumes. */
const LOW_WATER = 256 * 1024;
/**
 * Frame buffers kept for reuse (see BufferPool), of each size: as many as fit
 * the backlog streaming stops at, and a few being filled. A frame's buffer
 * goes back in the socket's write callback, which fires once the kernel has
 * the bytes or the write failed.
 */
const SPARE_FRAMES = HIGH_WATER / FRAME_BYTES + 4;
/** Small frames are rarely full: spares for a backlog of frames half full. */
const SPARE_SMALL_FRAMES = HIGH_WATER / (SMALL_FRAME_BYTES / 2) + 4;

export interface ViewerStreamsDeps {
  ws: WebSocket;
  service: PtyService;
  /** The service's screens, shared with the agent tool: a resync hands a viewer one. */
  screens: Pick<ScreenService, 'snapshot'>;
  /** The socket under the WebSocket, corked while output for many sessions is sent (see PanelConnectionDeps). */
  socket?: Pick<Duplex, 'cork' | 'uncork'>;
  /** Sends a control message (a resync) on the connection. */
  send(message: PanelServerMessage): void;
  /** A frame's write failed: the connection is done. */
  onWriteError(): void;
  /** Logs a failure nobody awaits (nothing to reply to). */
  report(error: unknown, context: string): void;
}

interface Viewer {
  id: SessionId;
  /** Next byte to send this viewer. */
  cursor: number;
  /** One past the last byte the viewer acknowledged as parsed; `cursor - acked` is in flight. */
  acked: number;
  /** Where the session's output ended when last seen: what a pump has to send, to size its frame. */
  end: number;
  /** How much may be in flight: sized from the pace of its acks. */
  window: ViewerWindow;
  /** When it last went live again after a resync (or asked for one): the next waits RESYNC_GAP_MS. */
  resyncedAt: number;
  /**
   * Whether it acknowledged output since its last resync for lag: one that
   * never acks is resynced once, then left alone, not resynced on a loop.
   */
  ackedSinceResync: boolean;
  /** Bumped on every attach/resync so a late snapshot for an old one is dropped. */
  generation: number;
  state: 'live' | 'resyncing';
}

/** The sessions one panel views and the output each is sent. */
export class ViewerStreams {
  private readonly viewers = new Map<SessionId, Viewer>();
  private readonly frames = new BufferPool(OUTPUT_FRAME_HEAD_ROOM + FRAME_BYTES, SPARE_FRAMES);
  private readonly smallFrames = new BufferPool(OUTPUT_FRAME_HEAD_ROOM + SMALL_FRAME_BYTES, SPARE_SMALL_FRAMES);
  private stalled = false;
  private closed = false;
  /** When output that arrived is pumped (pump-schedule.ts). */
  private readonly schedule = new PumpSchedule<Viewer>(
    (viewer) => this.pump(viewer),
    (viewers) => this.pumpCorked(viewers),
    FRAME_BYTES / 2,
  );

  constructor(private readonly deps: ViewerStreamsDeps) {}

  dispose(): void {
    if (this.closed) return;
    this.closed = true;
    this.schedule.dispose();
    this.viewers.clear();
  }

  /** Stops streaming the session to this panel (it detached, or the session was removed). */
  detach(id: SessionId): void {
    this.viewers.delete(id);
  }

  /** The session has `bytes` more output, up to `end`: sent now or with the next coalesced pump. */
  output(id: SessionId, bytes: number, end: number): void {
    const viewer = this.viewers.get(id);
    if (!viewer) return;
    viewer.end = Math.max(viewer.end, end);
    this.schedule.output(viewer, bytes);
  }

  attach(id: SessionId, cursor: number | null): void {
    const { service } = this.deps;
    if (!service.get(id)) throw new PtyError('no_such_session', `no such session: ${id}`);
    const previous = this.viewers.get(id);
    const start = cursor ?? 0;
    const viewer: Viewer = {
      id,
      cursor: start,
      acked: start,
      end: start,
      window: new ViewerWindow(start),
      resyncedAt: Number.NEGATIVE_INFINITY,
      ackedSinceResync: true,
      generation: (previous?.generation ?? 0) + 1,
      state: 'live',
    };
    this.viewers.set(id, viewer);
    // Without a cursor (first open, reload), or with one this log cannot serve, restore the screen first.
    // Probe without a cursor: it reports the oldest retained byte and the end.
    const probe = service.read(id, { maxBytes: 1 });
    viewer.end = probe.end;
    if (cursor === null || cursor > probe.end || cursor < probe.cursor) {
      this.resync(viewer, cursor === null ? null : Math.min(cursor, probe.end));
      return;
    }
    this.pump(viewer);
  }

  /** Credits the viewer with what it parsed; acks for another session, or older than known, change nothing. */
  ack(id: SessionId, cursor: number): void {
    const viewer = this.viewers.get(id);
    // While a screen is being made, acks are for output the screen replaces: they say nothing of the stream to come.
    if (!viewer || viewer.state !== 'live' || cursor <= viewer.acked) return;
    const blocked = viewer.cursor - viewer.acked >= viewer.window.size;
    // Never credit bytes that were not sent: a bogus ack cannot open the window wider.
    viewer.acked = Math.min(cursor, viewer.cursor);
    viewer.window.ack(viewer.acked, performance.now());
    viewer.ackedSinceResync = true;
    // Only a viewer the window held back has output waiting for this ack. Pumping on every ack sent
    // whatever a flood had added since the last frame, between the coalesced ones: frames of 24 KiB
    // on average instead of up to FRAME_BYTES, each a socket write on loopback TCP.
    if (blocked) this.pump(viewer);
  }

  /** A write on the socket finished: streaming stalled on its backlog resumes once it is low enough. */
  drained(): void {
    if (!this.stalled || this.deps.ws.bufferedAmount > LOW_WATER) return;
    this.stalled = false;
    this.pumpCorked([...this.viewers.values()]);
  }

  /** Streams from the viewer's cursor while its window has room and the socket keeps up. */
  private pump(viewer: Viewer): void {
    if (this.closed || viewer.state !== 'live' || this.viewers.get(viewer.id) !== viewer) return;
    const { service, ws } = this.deps;
    for (;;) {
      if (ws.bufferedAmount >= HIGH_WATER) {
        this.stalled = true;
        return;
      }
      const window = viewer.window.size;
      const room = window - (viewer.cursor - viewer.acked);
      // A full window still reads one byte: where the log ends and whether it trimmed past us.
      // Otherwise the output is copied into a frame buffer, after room for the frame's head, and the
      // buffer is reused once the socket wrote it; a small one when little is there to send.
      const frame = room > 0 ? this.frameFor(Math.min(room, viewer.end - viewer.cursor)) : undefined;
      let slice;
      try {
        slice = service.read(viewer.id, { cursor: viewer.cursor, maxBytes: room > 0 ? room : 1, into: frame?.subarray(OUTPUT_FRAME_HEAD_ROOM) });
      } catch {
        if (frame) this.giveFrame(frame);
        this.viewers.delete(viewer.id);
        return;
      }
      viewer.end = Math.max(viewer.end, slice.end);
      const trimmed = slice.skipped > 0;
      const lagging = trimmed || slice.end - viewer.acked > this.lagLimit(viewer);
      // Trimmed with room to send: nothing is left to replay. Otherwise skip ahead only when allowed.
      if ((trimmed && room > 0) || (lagging && this.mayResync(viewer))) {
        if (frame) this.giveFrame(frame);
        this.resync(viewer, viewer.cursor, true);
        return;
      }
      if (!frame || slice.data.length === 0) {
        if (frame) this.giveFrame(frame);
        return;
      }
      const start = writeOutputFrameHead({ id: viewer.id, cursor: slice.cursor }, frame, OUTPUT_FRAME_HEAD_ROOM);
      this.sendFrame(frame.subarray(start, OUTPUT_FRAME_HEAD_ROOM + slice.data.length), frame);
      viewer.cursor = slice.next;
      viewer.window.sent(slice.next, performance.now());
    }
  }

  /** A frame buffer for up to `bytes` of output (at least one byte, at most FRAME_BYTES: the frame takes what fits). */
  private frameFor(bytes: number): Uint8Array {
    return bytes <= SMALL_FRAME_BYTES ? this.smallFrames.take() : this.frames.take();
  }

  private giveFrame(buffer: Uint8Array): void {
    (buffer.byteLength === this.frames.size ? this.frames : this.smallFrames).give(buffer);
  }

  /** How far behind the log's head a viewer's acks may trail before it is resynced. */
  private lagLimit(viewer: Viewer): number {
    return Math.max(LAG_LIMIT, 2 * viewer.window.size);
  }

  private mayResync(viewer: Viewer): boolean {
    return viewer.ackedSinceResync && performance.now() - viewer.resyncedAt >= RESYNC_GAP_MS;
  }

  /**
   * Hands the viewer the mirrored screen and continues from where that screen
   * ends, with a fresh window. Frames already in flight still arrive first and
   * are covered by the screen. `seen` is where the viewer's own output ends
   * (null when it has none). If the mirror cannot produce the screen, the
   * viewer continues from the log instead (replayLog): either way it leaves
   * 'resyncing'.
   */
  private resync(viewer: Viewer, seen: number | null, forLag = false): void {
    viewer.state = 'resyncing';
    viewer.resyncedAt = performance.now();
    if (forLag) viewer.ackedSinceResync = false;
    const generation = viewer.generation;
    const current = () => !this.closed && this.viewers.get(viewer.id) === viewer && viewer.generation === generation;
    new Promise<ScreenSnapshot>((resolve) => resolve(this.deps.screens.snapshot(viewer.id)))
      .then(
        (snapshot) => {
          if (current()) this.restore(viewer, seen, snapshot);
        },
        (error: unknown) => {
          // Screens disposed while the screen was being made: the host is stopping, and the fallback is no news.
          if (!(error instanceof ScreenLostError && error.stopped)) {
            this.deps.report(error, `restoring the screen of session ${viewer.id} failed; replaying its log instead`);
          }
          if (current()) this.replayLog(viewer, seen);
        },
      )
      .catch((error: unknown) => this.deps.report(error, `resyncing session ${viewer.id} failed`));
  }

  /**
   * Sends the viewer its screen and goes on streaming. Making the screen
   * takes a while (the mirror parses up to the head, in a worker that waits
   * for a CPU during a flood: hundreds of milliseconds, see the bench README's
   * "A resynced viewer streams again"), and a flood may meanwhile have
   * written more than the log keeps, or more than the lag limit: a viewer
   * continued from the screen's cursor would be resynced again at once, and
   * again, and get screen after screen and none of the output for as long
   * as the flood ran. Such a viewer continues from a line start in the
   * log's newest output instead, told that it skipped what lies between:
   * the screen is then off by what the flood wrote meanwhile until that
   * output repaints it, as the mirror's own screen is once the log trims
   * past it.
   */
  private restore(viewer: Viewer, seen: number | null, snapshot: ScreenSnapshot): void {
    let cursor: number;
    try {
      cursor = this.resumeAt(viewer, snapshot.cursor);
    } catch {
      this.viewers.delete(viewer.id); // removed meanwhile
      return;
    }
    const skipped = seen === null ? 0 : Math.max(0, cursor - seen);
    const marks = snapshot.marks.length > 0 ? { marks: snapshot.marks } : {};
    this.deps.send({ type: 'resync', id: viewer.id, cursor, skipped, screen: snapshot.screen, ...marks });
    viewer.cursor = cursor;
    viewer.acked = cursor;
    viewer.window.restart(cursor);
    viewer.resyncedAt = performance.now();
    viewer.state = 'live';
    this.pump(viewer);
  }

  /**
   * Where a viewer handed a screen that reflects the log up to `screenEnd`
   * continues: there, unless the log has trimmed past it or its head is
   * beyond the lag limit (see restore). Throws once the session is gone.
   */
  private resumeAt(viewer: Viewer, screenEnd: number): number {
    const { service } = this.deps;
    const log = service.read(viewer.id, { maxBytes: 1 });
    if (screenEnd >= log.cursor && log.end - screenEnd <= this.lagLimit(viewer)) return screenEnd;
    // A line start: an escape sequence or a character never spans a line feed.
    const tail = service.read(viewer.id, { cursor: Math.max(log.cursor, log.end - RESUME_TAIL), maxBytes: RESUME_TAIL });
    const lineFeed = tail.data.indexOf(0x0a);
    return lineFeed < 0 ? tail.cursor : tail.cursor + lineFeed + 1;
  }

  /**
   * The fallback when the mirror cannot produce a screen: the log itself. A
   * viewer whose own output the log still continues carries on from where it
   * ends, its screen intact and nothing skipped. One with no output yet, or
   * whose cursor the log has trimmed past, is reset (an empty screen) and
   * replayed from the oldest byte the log keeps, told that everything before
   * it was skipped. The snapshot is not retried at once: it would most likely
   * fail the same way, at the cost of a full-speed parse each time, while the
   * log is always there; a viewer that falls behind again is resynced again,
   * no sooner than RESYNC_GAP_MS later, which is the retry.
   */
  private replayLog(viewer: Viewer, seen: number | null): void {
    let oldest: number;
    try {
      oldest = this.deps.service.read(viewer.id, { maxBytes: 1 }).cursor;
    } catch {
      this.viewers.delete(viewer.id); // removed meanwhile
      return;
    }
    if (seen === null || seen < oldest) {
      this.deps.send({ type: 'resync', id: viewer.id, cursor: oldest, skipped: oldest - (seen ?? 0), screen: '' });
      viewer.cursor = oldest;
      viewer.acked = oldest;
    } else {
      viewer.cursor = seen;
      viewer.acked = Math.min(viewer.acked, seen);
    }
    viewer.window.restart(viewer.acked);
    viewer.resyncedAt = performance.now();
    viewer.state = 'live';
    this.pump(viewer);
  }

  /**
   * Pumps these viewers with the socket corked, so their frames go out in one
   * write. Takes the viewers, not a function that pumps them: a closure from
   * each of two callers made the call in here polymorphic, which deoptimized
   * it once both had run (bench/README.md, "The delivery path's deoptimizations").
   */
  private pumpCorked(viewers: Viewer[]): void {
    const { socket } = this.deps;
    socket?.cork();
    try {
      for (const viewer of viewers) this.pump(viewer);
    } finally {
      socket?.uncork();
    }
  }

  /**
   * Sends one output frame, head and payload in one message (a message in two
   * fragments cost the receiver a copy to join them); `buffer`, which holds
   * it, is reused once the socket is done with it.
   */
  private sendFrame(message: Uint8Array, buffer: Uint8Array): void {
    const { ws } = this.deps;
    if (this.closed || ws.readyState !== ws.OPEN) {
      this.giveFrame(buffer);
      return;
    }
    ws.send(message, { binary: true }, (error) => {
      // The write is done or failed: nothing reads the buffer any more.
      this.giveFrame(buffer);
      if (error) this.deps.onWriteError();
      else this.drained();
    });
  }
}
