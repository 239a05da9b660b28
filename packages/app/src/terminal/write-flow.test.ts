import { describe, expect, it } from 'vitest';
import { WriteFlow } from './write-flow.js';

function setup() {
  const written: { text: string; parsed: () => void }[] = [];
  let behind = 0;
  const clock = { now: 0 };
  const flow = new WriteFlow({
    now: () => clock.now,
    maxLagMs: 100,
    write: (data, parsed) => written.push({ text: new TextDecoder().decode(data), parsed }),
    onBehind: () => behind++,
    inFlightBytes: 4,
    backlogBytes: 6,
  });
  const bytes = (text: string) => new TextEncoder().encode(text);
  return { flow, written, bytes, clock, behind: () => behind, texts: () => written.map((entry) => entry.text) };
}

describe('WriteFlow', () => {
  it('writes at once while the terminal keeps up', () => {
    const { flow, bytes, texts, written } = setup();
    flow.push(bytes('ab'));
    written[0]!.parsed();
    flow.push(bytes('cd'));
    expect(texts()).toEqual(['ab', 'cd']);
  });

  it('holds output beyond the in-flight limit and feeds it, in order, as the terminal parses', () => {
    const { flow, bytes, texts, written, behind } = setup();
    flow.push(bytes('abcd'));
    flow.push(bytes('ef'));
    flow.push(bytes('gh'));
    expect(texts()).toEqual(['abcd']);
    written[0]!.parsed();
    expect(texts()).toEqual(['abcd', 'ef', 'gh']);
    expect(behind()).toBe(0);
  });

  it('drops a backlog past its byte limit, asks for a restore once, and ignores output until it comes', () => {
    const { flow, bytes, texts, written, behind } = setup();
    flow.push(bytes('abcd'));
    flow.push(bytes('efgh'));
    flow.push(bytes('ijk'));
    expect(behind()).toBe(1);
    expect(flow.behind).toBe(true);
    flow.push(bytes('lmnopq'));
    written[0]!.parsed();
    expect(texts()).toEqual(['abcd']);
    expect(behind()).toBe(1);

    flow.restored();
    flow.push(bytes('rs'));
    expect(texts()).toEqual(['abcd', 'rs']);
    expect(flow.behind).toBe(false);
  });

  it('a restore the server sends on its own discards the backlog it covers', () => {
    const { flow, bytes, texts, written } = setup();
    flow.push(bytes('abcd'));
    flow.push(bytes('ef'));
    flow.restored();
    written[0]!.parsed();
    flow.push(bytes('gh'));
    expect(texts()).toEqual(['abcd', 'gh']);
  });

  it('drops the backlog once its oldest output has waited too long, whatever its size', () => {
    const { flow, bytes, texts, written, clock, behind } = setup();
    flow.push(bytes('abcd'));
    flow.push(bytes('e'));
    clock.now = 100;
    flow.push(bytes('f'));
    expect(behind()).toBe(0);
    clock.now = 101;
    flow.push(bytes('g'));
    expect(behind()).toBe(1);
    written[0]!.parsed();
    expect(texts()).toEqual(['abcd']);
  });

  it('a backlog that stops growing drains, however long the terminal takes', () => {
    const { flow, bytes, texts, written, clock, behind } = setup();
    flow.push(bytes('abcd'));
    flow.push(bytes('ef'));
    clock.now = 10_000;
    written[0]!.parsed();
    expect(texts()).toEqual(['abcd', 'ef']);
    expect(behind()).toBe(0);
  });
});
