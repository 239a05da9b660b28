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

/** Lets the microtasks queued so far run: the end of the task the parse callbacks ran in. */
const taskEnd = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

describe('WriteFlow', () => {
  it('writes output at once, in order, whatever is still being parsed', () => {
    const { flow, bytes, texts } = setup();
    flow.push(bytes('ab'), 2);
    flow.push(bytes('cd'), 4);
    flow.push(bytes('efgh'), 8);
    expect(texts()).toEqual(['ab', 'cd', 'efgh']);
  });

  it('acknowledges only what the terminal has parsed, in batches of ackBytes', async () => {
    const { flow, bytes, written, acks } = setup();
    flow.push(bytes('ab'), 2);
    flow.push(bytes('cd'), 4);
    flow.push(bytes('e'), 5);
    expect(acks).toEqual([]);
    written[0]!.parsed();
    await taskEnd();
    expect(acks).toEqual([]);
    written[1]!.parsed();
    await taskEnd();
    expect(acks).toEqual([4]);
    written[2]!.parsed();
    await taskEnd();
    expect(acks).toEqual([4]);
    flow.push(bytes('fghij'), 10);
    written[3]!.parsed();
    await taskEnd();
    expect(acks).toEqual([4, 10]);
  });

  it('acknowledges the writes parsed in one task once, up to the last of them, after the task', async () => {
    const { flow, bytes, written, acks } = setup();
    for (let i = 1; i <= 4; i++) flow.push(bytes('abcd'), 4 * i);
    // xterm.js calls the callbacks of the writes it parsed one after another, in one task.
    for (const write of written) write.parsed();
    expect(acks).toEqual([]);
    await taskEnd();
    expect(acks).toEqual([16]);
    written.length = 0;
    flow.push(bytes('ef'), 18);
    flow.push(bytes('ghi'), 21);
    written[0]!.parsed();
    await taskEnd();
    written[1]!.parsed();
    await taskEnd();
    expect(acks).toEqual([16, 21]);
  });

  it('counts from a restored cursor: output queued before the restore is not acknowledged again', async () => {
    const { flow, bytes, written, acks } = setup();
    flow.push(bytes('abcdef'), 6);
    flow.restored(1_000);
    written[0]!.parsed();
    await taskEnd();
    expect(acks).toEqual([]);
    flow.push(bytes('xy'), 1_002);
    written[1]!.parsed();
    await taskEnd();
    expect(acks).toEqual([]);
    flow.push(bytes('zzz'), 1_005);
    written[2]!.parsed();
    await taskEnd();
    expect(acks).toEqual([1_005]);
  });

  it('does not acknowledge, after a restore in the same task, what was parsed before it', async () => {
    const { flow, bytes, written, acks } = setup();
    flow.push(bytes('abcdef'), 6);
    written[0]!.parsed();
    flow.restored(1_000);
    await taskEnd();
    expect(acks).toEqual([]);
  });

  it('ignores empty output', () => {
    const { flow, written } = setup();
    flow.push(new Uint8Array(0), 0);
    expect(written).toEqual([]);
  });
});
