import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ACK_WINDOW, decodeOutputFrame } from '@ptydeck/contract';
import { createPtyService } from '../pty/pty-service.js';
import { isolatedEnv } from '../testing/isolated-env.js';
import type { PtyService } from '../pty/types.js';
import { AgentRegistry } from './agent-registry.js';
import { SessionFacts } from '../facts/index.js';
import { PanelConnection } from './panel-connection.js';

const FRAME = 64 * 1024;

/**
 * A WebSocket whose writes finish when the test says so, as a socket whose
 * kernel buffer is full keeps a frame's bytes until it can write them.
 * Records each output frame's payload (a view of the message sent, read
 * later) and a copy of its bytes as they were when sent.
 */
class HeldSocket extends EventEmitter {
  readonly OPEN = 1;
  readonly readyState = 1;
  readonly bufferedAmount = 0;
  readonly frames: { payload: Uint8Array; sentAs: Uint8Array }[] = [];
  /** The socket under it, as PanelConnection is given it: whether each frame was sent corked. */
  readonly socket = { depth: 0, cork: () => this.socket.depth++, uncork: () => this.socket.depth-- };
  readonly corked: boolean[] = [];
  private held: (() => void)[] = [];

  send(data: string | Uint8Array, options?: unknown, callback?: (error?: Error) => void): void {
    const done = typeof options === 'function' ? (options as (error?: Error) => void) : callback;
    if (typeof data === 'string') {
      done?.();
      return;
    }
    const { data: payload } = decodeOutputFrame(data);
    this.corked.push(this.socket.depth > 0);
    this.frames.push({ payload, sentAs: Uint8Array.from(payload) });
    if (done) this.held.push(() => done());
  }

  /** Every write so far finishes. */
  finishWrites(): void {
    const held = this.held;
    this.held = [];
    for (const done of held) done();
  }

  terminate(): void {}

  fromPanel(message: unknown): void {
    this.emit('message', Buffer.from(JSON.stringify(message)), false);
  }
}

let service: PtyService | undefined;
afterEach(async () => {
  await service?.dispose();
  service = undefined;
});

/** `bytes` of output whose every 8-byte word names its own offset from `from`, so any overwrite shows. */
function numbered(from: number, bytes: number): Buffer {
  let text = '';
  for (let at = from; at < from + bytes; at += 8) text += `${String(at).padStart(7, '0')}\n`;
  return Buffer.from(text);
}

/** A display session and a panel connection attached to nothing yet, on a socket that holds its writes. */
function panelOn(title: string): { session: ReturnType<PtyService['createDisplay']>['session']; ws: HeldSocket; connection: PanelConnection } {
  service = createPtyService({ env: isolatedEnv() });
  const { session } = service.createDisplay({ source: 'agent', title });
  const ws = new HeldSocket();
  const connection = new PanelConnection(ws as never, {
    service,
    facts: new SessionFacts(service),
    agents: new AgentRegistry(),
    screens: { snapshot: () => Promise.reject(new Error('no screens here')) },
    instance: 'test',
    socket: ws.socket,
  });
  return { session, ws, connection };
}

describe("a panel connection's frame buffers", () => {
  it('are reused only once the socket has written the frame that carried them', async () => {
    const { session, ws, connection } = panelOn('frames');
    try {
      ws.fromPanel({ type: 'attach', id: session.id, cursor: 0 });
      session.append(numbered(0, ACK_WINDOW + FRAME));
      // The window lets the first ACK_WINDOW out; their writes are still in progress.
      await vi.waitFor(() => expect(ws.frames.length).toBe(ACK_WINDOW / FRAME));
      ws.fromPanel({ type: 'ack', id: session.id, cursor: ACK_WINDOW });
      await vi.waitFor(() => expect(ws.frames.length).toBe(ACK_WINDOW / FRAME + 1));
      // A frame sent while the others are still being written is in a buffer of its own: none was overwritten.
      const inFlight = ws.frames.map((frame) => frame.payload.buffer);
      expect(new Set(inFlight).size).toBe(inFlight.length);
      for (const frame of ws.frames) expect(Buffer.from(frame.payload).equals(frame.sentAs)).toBe(true);

      // Once written, the buffers are used again, and what they carry next is the right output.
      ws.finishWrites();
      session.append(numbered(ACK_WINDOW + FRAME, FRAME));
      ws.fromPanel({ type: 'ack', id: session.id, cursor: ACK_WINDOW + FRAME });
      await vi.waitFor(() => expect(ws.frames.length).toBe(ACK_WINDOW / FRAME + 2));
      expect(inFlight).toContain(ws.frames.at(-1)!.payload.buffer);
      const delivered = Buffer.concat(ws.frames.map((frame) => frame.sentAs));
      expect(delivered.equals(numbered(0, ACK_WINDOW + 2 * FRAME))).toBe(true);
    } finally {
      connection.dispose();
    }
  });

  it('fit the output a frame carries: a frame of a few KiB does not hold a 64 KiB buffer while it is written', async () => {
    const { session, ws, connection } = panelOn('small frames');
    try {
      ws.fromPanel({ type: 'attach', id: session.id, cursor: 0 });
      // A flood's coalesced frames carry what arrived since the last one: a few KiB each, held while the socket writes.
      const chunk = 4 * 1024;
      const chunks = 8;
      for (let i = 0; i < chunks; i++) {
        session.append(numbered(i * chunk, chunk));
        await vi.waitFor(() => expect(ws.frames.reduce((bytes, frame) => bytes + frame.payload.length, 0)).toBe((i + 1) * chunk));
      }
      for (const frame of ws.frames) expect(frame.payload.buffer.byteLength).toBeLessThan(FRAME);
      const delivered = Buffer.concat(ws.frames.map((frame) => frame.sentAs));
      expect(delivered.equals(numbered(0, chunks * chunk))).toBe(true);

      // Written, their buffers carry the next ones, and a frame with more to carry gets a large one.
      const small = new Set(ws.frames.map((frame) => frame.payload.buffer));
      ws.finishWrites();
      session.append(numbered(chunks * chunk, chunk));
      await vi.waitFor(() => expect(ws.frames.length).toBe(chunks + 1));
      expect(small).toContain(ws.frames.at(-1)!.payload.buffer);
      session.append(numbered((chunks + 1) * chunk, FRAME));
      await vi.waitFor(() => expect(ws.frames.reduce((bytes, frame) => bytes + frame.payload.length, 0)).toBe((chunks + 1) * chunk + FRAME));
      expect(ws.frames.at(-1)!.payload.length).toBe(FRAME);
      expect(Buffer.concat(ws.frames.map((frame) => frame.sentAs)).equals(numbered(0, (chunks + 1) * chunk + FRAME))).toBe(true);
    } finally {
      connection.dispose();
    }
  });

  it("carry a task's read thread batches out together, in one corked write", async () => {
    const { session, ws, connection } = panelOn('batches');
    try {
      ws.fromPanel({ type: 'attach', id: session.id, cursor: 0 });
      // Two batches of the size the read thread hands on, in one task (it hands on 256 KiB a turn), within the window.
      const batch = 60 * 1024;
      session.append(numbered(0, batch));
      session.append(numbered(batch, batch));
      await vi.waitFor(() => expect(ws.frames.reduce((bytes, frame) => bytes + frame.payload.length, 0)).toBe(2 * batch));
      // Not the first at once and the rest on the coalescing timer: both at the end of the task, corked.
      expect(ws.corked.every(Boolean)).toBe(true);
      expect(Buffer.concat(ws.frames.map((frame) => frame.sentAs)).equals(numbered(0, 2 * batch))).toBe(true);
    } finally {
      connection.dispose();
    }
  });

  it("carry a small chunk out with the task's batches, in the same corked write", async () => {
    const { session, ws, connection } = panelOn('small batch');
    try {
      ws.fromPanel({ type: 'attach', id: session.id, cursor: 0 });
      // The read thread hands on small batches too (a read that found little): one, then a full one, in one task.
      const small = 512;
      const batch = 60 * 1024;
      session.append(numbered(0, small));
      session.append(numbered(small, batch));
      await vi.waitFor(() => expect(ws.frames.reduce((bytes, frame) => bytes + frame.payload.length, 0)).toBe(small + batch));
      // Not the small one at once, uncorked, in a frame of its own: one frame at the end of the task, corked.
      expect(ws.corked).toEqual([true]);
      expect(Buffer.concat(ws.frames.map((frame) => frame.sentAs)).equals(numbered(0, small + batch))).toBe(true);
    } finally {
      connection.dispose();
    }
  });
});
