import { describe, expect, it } from 'vitest';
import { TerminalFeed } from './terminal-feed.js';

describe('TerminalFeed', () => {
  it('restores through the write queue (RIS, then the screen) and counts acks from the restored cursor', () => {
    const written: string[] = [];
    const parsedCallbacks: (() => void)[] = [];
    const acks: number[] = [];
    const feed = new TerminalFeed(
      {
        write: (data: string | Uint8Array, parsed?: () => void) => {
          written.push(typeof data === 'string' ? data : new TextDecoder().decode(data));
          if (parsed) parsedCallbacks.push(parsed);
        },
      },
      (cursor) => acks.push(cursor),
    );
    feed.restore('screen', 1_000_000);
    feed.write(new TextEncoder().encode('x'), 1_000_001);
    parsedCallbacks.forEach((parsed) => parsed());
    expect(written).toEqual(['\x1bc', 'screen', 'x']);
    // One byte past the restored cursor is not yet worth an ack.
    expect(acks).toEqual([]);
  });
});

describe('TerminalFeed waiters', () => {
  function fakeTerminal() {
    const log: string[] = [];
    return {
      log,
      write: (data: string | Uint8Array, parsed?: () => void) => {
        const text = typeof data === 'string' ? data : new TextDecoder().decode(data);
        if (text !== '') log.push(text);
        // Parsed at once, in order: what the callback sees is everything written so far.
        parsed?.();
      },
    };
  }

  it('cut the output where a waited cursor falls, so the callback sees exactly the output before it', () => {
    const terminal = fakeTerminal();
    const feed = new TerminalFeed(terminal, () => undefined);
    feed.restore('', 100);
    const seen: string[] = [];
    expect(feed.whenParsed(103, () => seen.push(terminal.log.join('')))).toBe(true);
    expect(feed.whenParsed(106, () => seen.push(terminal.log.join('')))).toBe(true);
    feed.write(new TextEncoder().encode('abcdefgh'), 108);
    expect(seen).toEqual(['\x1bcabc', '\x1bcabcdef']);
    expect(terminal.log.slice(1)).toEqual(['abc', 'def', 'gh']);
  });

  it('answer at once at the fed cursor, refuse a cursor already handed over, and skip what a restore skips', () => {
    const terminal = fakeTerminal();
    const feed = new TerminalFeed(terminal, () => undefined);
    feed.write(new TextEncoder().encode('abc'), 3);
    expect(feed.whenParsed(2, () => undefined)).toBe(false);
    const results: [string, boolean][] = [];
    expect(feed.whenParsed(3, (parsed) => results.push(['at', parsed]))).toBe(true);
    feed.whenParsed(50, (parsed) => results.push(['skipped', parsed]));
    feed.whenParsed(200, (parsed) => results.push(['restored', parsed]));
    feed.whenParsed(300, (parsed) => results.push(['later', parsed]));
    feed.restore('screen', 200);
    expect(results).toEqual([['at', true], ['skipped', false], ['restored', true]]);
  });
});
