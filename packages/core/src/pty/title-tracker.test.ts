import { describe, expect, it } from 'vitest';
import { SequenceScanner } from '../vt/index.js';
import { TitleTracker } from './title-tracker.js';

/** A tracker following a scanner of its own, fed chunk after chunk as the PTY service feeds a session's. */
function newTracker(): { feed: (chunk: Buffer) => string | undefined } {
  const scanner = new SequenceScanner();
  const titles = new TitleTracker();
  titles.follow(scanner);
  return {
    feed: (chunk) => {
      scanner.scan(scanner.end, chunk);
      return titles.take();
    },
  };
}

const feedAll = (tracker: ReturnType<typeof newTracker>, ...chunks: string[]) => chunks.map((chunk) => tracker.feed(Buffer.from(chunk)));

describe('TitleTracker', () => {
  it('reads OSC 0 and OSC 2 terminated by BEL or ST', () => {
    const tracker = newTracker();
    expect(tracker.feed(Buffer.from('a\x1b]0;first\x07b'))).toBe('first');
    expect(tracker.feed(Buffer.from('\x1b]2;second\x1b\\'))).toBe('second');
    expect(tracker.feed(Buffer.from('\x1b]2;x\x07\x1b]0;last\x07'))).toBe('last');
    expect(tracker.feed(Buffer.from('plain \x1b[31mred\x1b[0m'))).toBeUndefined();
  });

  it('takes a "]" for an OSC only right after ESC', () => {
    const tracker = newTracker();
    expect(tracker.feed(Buffer.from('a[0] ]0;not\x07 \x1b[1m]2;nor\x07'))).toBeUndefined();
    expect(tracker.feed(Buffer.from(']0;x\x07 arr[i]\x1b]2;this\x07 ]'))).toBe('this');
    expect(feedAll(tracker, 'ok]', ']0;no\x07', '\x1b\x1b]0;yes\x07')).toEqual([undefined, undefined, 'yes']);
  });

  it('keeps a copy of a title cut across chunks: a chunk is lent for the call and may be filled again after it', () => {
    const tracker = newTracker();
    const first = Buffer.from('x\x1b]0;hel');
    expect(tracker.feed(first)).toBeUndefined();
    first.fill(0x7a); // the read thread reuses the buffer
    expect(tracker.feed(Buffer.from('lo\x07'))).toBe('hello');
  });

  it('ignores other OSC codes and oversized payloads', () => {
    const tracker = newTracker();
    expect(tracker.feed(Buffer.from('\x1b]1;icon\x07\x1b]8;;http://x\x07link\x1b]8;;\x07'))).toBeUndefined();
    expect(tracker.feed(Buffer.from(`\x1b]52;c;${'A'.repeat(10_000)}\x07`))).toBeUndefined();
    expect(tracker.feed(Buffer.from(`\x1b]0;${'t'.repeat(5000)}\x07`))).toBeUndefined();
    expect(tracker.feed(Buffer.from('\x1b]0;ok\x07'))).toBe('ok');
  });

  it('follows sequences split across chunks, including between ESC and ]', () => {
    const tracker = newTracker();
    expect(feedAll(tracker, 'x\x1b', ']0;sp', 'lit ✓', '\x1b', '\\y')).toEqual([undefined, undefined, undefined, undefined, 'split ✓']);
    const utf8 = Buffer.from('\x1b]2;né\x07');
    expect(tracker.feed(utf8.subarray(0, 6))).toBeUndefined();
    expect(tracker.feed(utf8.subarray(6))).toBe('né');
  });

  it('drops control characters and aborts on a stray escape', () => {
    const tracker = newTracker();
    expect(tracker.feed(Buffer.from('\x1b]0;a\tb\x07'))).toBe('ab');
    expect(tracker.feed(Buffer.from('\x1b]0;broken\x1b[0m\x1b]0;fine\x07'))).toBe('fine');
  });
});
