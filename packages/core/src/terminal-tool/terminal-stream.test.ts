import { describe, expect, it } from 'vitest';
import { SequenceScanner } from '../vt/index.js';
import { followTerminalStream, type StreamEvent } from './terminal-stream.js';

const bytes = (s: string) => Buffer.from(s, 'utf8');

/** Feeds `text` split at every given offset and collects the events. */
function scanSplit(text: string, splits: number[]): { events: StreamEvent[]; scanner: SequenceScanner } {
  const { scanner, events } = newStream();
  const data = bytes(text);
  let at = 0;
  for (const split of [...splits, data.length]) {
    scanner.scan(at, data.subarray(at, split));
    at = split;
  }
  return { events, scanner };
}

/** A scanner and the stream events it hands the agent tool, as a session's scan does. */
function newStream(): { scanner: SequenceScanner; events: StreamEvent[] } {
  const scanner = new SequenceScanner();
  const events: StreamEvent[] = [];
  followTerminalStream((handlers) => scanner.on(handlers), (event) => events.push(event));
  return { scanner, events };
}

describe('the terminal stream', () => {
  it('reports OSC payloads with their byte range, terminated by BEL or ST', () => {
    const text = 'a\x1b]133;D;0\x07b\x1b]7;file://h/tmp\x1b\\c';
    const { events } = scanSplit(text, []);
    expect(events).toEqual([
      { kind: 'osc', payload: '133;D;0', start: 1, end: 11 },
      { kind: 'osc', payload: '7;file://h/tmp', start: 12, end: 30 },
    ]);
  });

  it('finds the same events however the stream is split', () => {
    const text = 'héllo\x1b]133;A\x07\x1b[?1049h\x1b[?1h\x1b]133;D;127\x07\x1b[?1049l';
    const whole = scanSplit(text, []).events;
    for (let split = 1; split < bytes(text).length; split++) {
      expect(scanSplit(text, [split]).events).toEqual(whole);
    }
    expect(whole.map((e) => e.kind)).toEqual(['osc', 'alt-screen', 'app-cursor', 'osc', 'alt-screen']);
  });

  it('keeps safeEnd before an open escape sequence or UTF-8 character', () => {
    const { scanner } = newStream();
    scanner.scan(0, bytes('ab\x1b]133;'));
    expect(scanner.end).toBe(8);
    expect(scanner.safeEnd).toBe(2);
    scanner.scan(8, bytes('C\x07x'));
    expect(scanner.safeEnd).toBe(11);
    const euro = bytes('€');
    scanner.scan(11, euro.subarray(0, 2));
    expect(scanner.safeEnd).toBe(11);
    scanner.scan(13, euro.subarray(2));
    expect(scanner.safeEnd).toBe(14);
  });

  it('restarts cleanly after a gap in cursors', () => {
    const { scanner, events } = newStream();
    scanner.scan(0, bytes('\x1b]133;'));
    scanner.scan(100, bytes('x\x1b]133;B\x07'));
    expect(events).toEqual([{ kind: 'osc', payload: '133;B', start: 101, end: 109 }]);
  });
});
