// One output stream per session fanned out to every view of it (its tab, chat cards), so a session is attached
// once.
import type { ScreenMark, Unsubscribe } from '@ptydeck/contract';
import type { PanelClient } from '../connection/panel-client.js';

/** A view of a session's output: a panel tab's terminal, a chat card's mini-terminal. */
export interface StreamSink {
  /** Output bytes in order, ending at cursor `next`. */
  write(data: Uint8Array, next: number): void;
  /** The screen restored by the server; output continues from `cursor`. `marks`: where commands are in it. */
  restore(screen: string, cursor: number, marks?: readonly ScreenMark[]): void;
}

export interface StreamSubscription {
  /** The sink's terminal has parsed output up to `cursor` (its WriteFlow's acks). */
  parsed(cursor: number): void;
  dispose(): void;
}

type StreamClient = Pick<PanelClient, 'attach' | 'detach' | 'ack' | 'refresh' | 'onOutput' | 'onResync'>;

interface Member {
  sink: StreamSink;
  /**
   * Cursor one past the last output this sink was handed; null until its
   * first screen, before which output is not handed on (the screen covers it).
   */
  through: number | null;
  parsed: number;
}

interface Stream {
  members: Set<Member>;
  /** The highest cursor acknowledged to the server. */
  acked: number;
}

/**
 * One attachment per session, fanned out to every view of it. The panel
 * socket carries a session's output once, with one cursor and one window of
 * flow control, so two views of one session (its tab and a chat card) share
 * it: the server is acknowledged only what the slowest view has parsed, and a
 * view that joins late asks for the screen again, which restores only the
 * views that need it (those not already at the screen's cursor).
 */
export class SessionStreams {
  private readonly streams = new Map<string, Stream>();
  private readonly unsubscribe: Unsubscribe[];

  constructor(private readonly client: StreamClient) {
    this.unsubscribe = [
      client.onOutput(({ id, data, next }) => {
        const stream = this.streams.get(id);
        if (!stream) return;
        for (const member of stream.members) {
          if (member.through === null) continue;
          member.through = next;
          member.sink.write(data, next);
        }
      }),
      client.onResync(({ id, screen, cursor, marks }) => {
        const stream = this.streams.get(id);
        if (!stream) return;
        // The server counts its window from here again.
        stream.acked = cursor;
        for (const member of stream.members) {
          if (member.through === cursor) continue;
          member.through = cursor;
          member.parsed = Math.max(member.parsed, cursor);
          member.sink.restore(screen, cursor, marks);
        }
      }),
    ];
  }

  subscribe(id: string, sink: StreamSink): StreamSubscription {
    let stream = this.streams.get(id);
    const member: Member = { sink, through: null, parsed: 0 };
    if (!stream) {
      stream = { members: new Set([member]), acked: 0 };
      this.streams.set(id, stream);
      this.client.attach(id);
    } else {
      stream.members.add(member);
      // The others have seen output this one never will: the server hands out the screen again.
      this.client.refresh(id);
    }
    const current = stream;
    let disposed = false;
    return {
      parsed: (cursor) => {
        if (disposed) return;
        member.parsed = Math.max(member.parsed, cursor);
        this.ackSlowest(id, current);
      },
      dispose: () => {
        if (disposed) return;
        disposed = true;
        current.members.delete(member);
        if (current.members.size > 0) {
          // The slowest may have been this one.
          this.ackSlowest(id, current);
          return;
        }
        if (this.streams.get(id) === current) this.streams.delete(id);
        this.client.detach(id);
      },
    };
  }

  dispose(): void {
    for (const unsubscribe of this.unsubscribe) unsubscribe();
    this.streams.clear();
  }

  private ackSlowest(id: string, stream: Stream): void {
    let slowest = Number.POSITIVE_INFINITY;
    for (const member of stream.members) slowest = Math.min(slowest, member.parsed);
    if (!Number.isFinite(slowest) || slowest <= stream.acked) return;
    stream.acked = slowest;
    this.client.ack(id, slowest);
  }
}
