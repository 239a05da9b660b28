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
