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

/** Lets the microtasks queued so far run: the end of a task. */
const taskEnd = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Hands the bench client and the app's WriteFlow the same frames, `perTask`
 * at a time (a socket read's frames; the writes xterm.js parses in one task),
 * and returns the cursors each acked.
 */
async function acksOf(lengths, perTask) {
  const socket = new FakeSocket();
  const client = new PanelClient(socket);
  client.snapshot.promise.catch(() => {});
  const appAcks = [];
  const parsedInTask = [];
  const app = new WriteFlow({ write: (_data, parsed) => parsedInTask.push(parsed), ack: (cursor) => appAcks.push(cursor) });
  client.attach('s1', 0);
  let cursor = 0;
  for (let i = 0; i < lengths.length; i += perTask) {
    for (const length of lengths.slice(i, i + perTask)) {
      socket.emit('message', outputFrame('s1', cursor, length), true);
      app.push(new Uint8Array(length), cursor + length);
      cursor += length;
    }
    for (const parsed of parsedInTask.splice(0)) parsed();
    await taskEnd();
  }
  return { bench: socket.sent.filter((message) => message.type === 'ack').map((message) => message.cursor), app: appAcks };
}

/** Frames of several sizes, as a pump sends them when an ack leaves the window only part free. */
const LENGTHS = [20_000, 9_000, 9_000, 40_000, 65_536, 3_000, 14_000, 30_000, 16_384];

describe('the bench panel client', () => {
  // Figure 2 measures delivery to a panel: the core's work per ack is part of it, so the bench acks as the app does.
  it('acks the same cursors as the app, frame for frame', async () => {
    const { bench, app } = await acksOf(LENGTHS, 1);
    expect(bench).toEqual(app);
    expect(app.length).toBeGreaterThan(3);
  });

  it('acks the frames of one task once, as the app acks the writes parsed in one task', async () => {
    const { bench, app } = await acksOf(LENGTHS, 4);
    expect(bench).toEqual(app);
    // Tasks of 4, 4 and 1 frames: one ack for each of the first two, and the last frame completes a third batch.
    expect(app).toEqual([78_000, 190_536, 206_920]);
  });
});
