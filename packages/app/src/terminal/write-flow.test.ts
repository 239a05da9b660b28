import { describe, expect, it } from 'vitest';
import { WriteFlow } from './write-flow.js';

function setup() {
  const written: { text: string; parsed: () => void }[] = [];
  const acks: number[] = [];
  const flow = new WriteFlow({
    write: (data, parsed) => written.push({ text: new TextDecoder().decode(data), parsed }),
    ack: (cursor) => acks.push(cursor),
    ackBytes: 4,
  });
  const bytes = (text: string) => new TextEncoder().encode(text);
  return { flow, written, acks, bytes, texts: () => written.map((entry) => entry.text) };
}

describe('WriteFlow', () => {
  it('writes output at once, in order, whatever is still being parsed', () => {
    const { flow, bytes, texts } = setup();
    flow.push(bytes('ab'), 2);
    flow.push(bytes('cd'), 4);
    flow.push(bytes('efgh'), 8);
    expect(texts()).toEqual(['ab', 'cd', 'efgh']);
  });

  it('acknowledges only what the terminal has parsed, in batches of ackBytes', () => {
    const { flow, bytes, written, acks } = setup();
    flow.push(bytes('ab'), 2);
    flow.push(bytes('cd'), 4);
    flow.push(bytes('e'), 5);
    expect(acks).toEqual([]);
    written[0]!.parsed();
    expect(acks).toEqual([]);
    written[1]!.parsed();
    expect(acks).toEqual([4]);
    written[2]!.parsed();
    expect(acks).toEqual([4]);
    flow.push(bytes('fghij'), 10);
    written[3]!.parsed();
    expect(acks).toEqual([4, 10]);
  });

  it('counts from a restored cursor: output queued before the restore is not acknowledged again', () => {
    const { flow, bytes, written, acks } = setup();
    flow.push(bytes('abcdef'), 6);
    flow.restored(1_000);
    written[0]!.parsed();
    expect(acks).toEqual([]);
    flow.push(bytes('xy'), 1_002);
    written[1]!.parsed();
    expect(acks).toEqual([]);
    flow.push(bytes('zzz'), 1_005);
    written[2]!.parsed();
    expect(acks).toEqual([1_005]);
  });

  it('ignores empty output', () => {
    const { flow, written } = setup();
    flow.push(new Uint8Array(0), 0);
    expect(written).toEqual([]);
  });
});
