import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha1 } from './sha1.js';

describe('sha1', () => {
  it("is node:crypto's SHA-1 at every length of up to five blocks, across each block's padding edge", () => {
    for (let length = 0; length <= 320; length++) {
      const data = randomBytes(length);
      expect(sha1(data).toString('hex'), `${length} bytes`).toBe(createHash('sha1').update(data).digest('hex'));
    }
  });

  it("gives RFC 6455's Sec-WebSocket-Accept for its example key", () => {
    expect(sha1(Buffer.from('dGhlIHNhbXBsZSBub25jZQ==258EAFA5-E914-47DA-95CA-C5AB0DC85B11', 'latin1')).toString('base64')).toBe('s3pPLMBiTxaQ9kYGzzhZRbK+xOo=');
  });
});
