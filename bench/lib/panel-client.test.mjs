import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { WriteFlow } from '../../packages/app/src/terminal/write-flow.ts';
import { PanelClient } from './panel-client.mjs';

/** A socket that records what the client sends and lets the test hand it messages. */
class FakeSocket extends EventEmitter {
  sent = [];
  send(text) {
    this.sent.push(JSON.parse(text));
  }
}

/** An output frame as the core sends it: head length, JSON head, payload. */
function outputFrame(id, cursor, length) {
  const head = Buffer.from(JSON.stringify({ id, cursor }));
  const frame = Buffer.alloc(2 + head.length + length, 0x61);
  frame.writeUInt16BE(head.length, 0);
  head.copy(frame, 2);
  return frame;
}

describe('the bench panel client', () => {
  // Figure 2 measures delivery to a panel: the core's work per ack is part of it, so the bench acks as the app does.
  it('acks the same cursors as the app, frame for frame', () => {
    const socket = new FakeSocket();
    const client = new PanelClient(socket);
    client.snapshot.promise.catch(() => {});
    const appAcks = [];
    const app = new WriteFlow({ write: (_data, parsed) => parsed(), ack: (cursor) => appAcks.push(cursor) });
    client.attach('s1', 0);
    let cursor = 0;
    // Frames of several sizes, as a pump sends them when an ack leaves the window only part free.
    for (const length of [20_000, 9_000, 9_000, 40_000, 65_536, 3_000, 14_000, 30_000, 16_384]) {
      socket.emit('message', outputFrame('s1', cursor, length), true);
      app.push(new Uint8Array(length), cursor + length);
      cursor += length;
    }
    const benchAcks = socket.sent.filter((message) => message.type === 'ack').map((message) => message.cursor);
    expect(benchAcks).toEqual(appAcks);
    expect(appAcks.length).toBeGreaterThan(3);
  });
});
