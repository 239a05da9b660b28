import { describe, expect, it } from 'vitest';
import { ChannelKind, ChannelReader, ChannelWriter } from './channel-frames.js';

describe('the panel channel on a byte stream', () => {
  it("writes one turn's messages in one write, and the reader cuts them back apart, however the stream splits them", async () => {
    const writes: Buffer[] = [];
    const writer = new ChannelWriter((batch) => (writes.push(batch), true));
    writer.write(ChannelKind.Text, '{"type":"input"}');
    writer.write(ChannelKind.Binary, new Uint8Array([1, 2, 3]));
    writer.write(ChannelKind.Text, '{"type":"ack"}');
    expect(writes).toHaveLength(0);
    await Promise.resolve();
    expect(writes).toHaveLength(1);
    writer.write(ChannelKind.Text, 'next turn');
    await Promise.resolve();
    expect(writes).toHaveLength(2);

    const got: [ChannelKind, string][] = [];
    const reader = new ChannelReader((kind, payload) => got.push([kind, kind === ChannelKind.Text ? payload.toString('utf8') : payload.toString('hex')]));
    const stream = Buffer.concat(writes);
    for (let at = 0; at < stream.length; at += 3) reader.write(stream.subarray(at, at + 3));
    expect(got).toEqual([
      [ChannelKind.Text, '{"type":"input"}'],
      [ChannelKind.Binary, '010203'],
      [ChannelKind.Text, '{"type":"ack"}'],
      [ChannelKind.Text, 'next turn'],
    ]);
  });
});
