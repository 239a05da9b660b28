import { describe, expect, it } from 'vitest';
import { clientFrame, Opcode } from './ws-frames.js';

describe('clientFrame', () => {
  it('masks every frame with a fresh key, across refills of the random pool, and the payload unmasks whole', () => {
    const payload = Buffer.from('the same payload in every frame');
    const keys = new Set<string>();
    // 200 frames: the pool holds 64 keys, so it is refilled three times.
    for (let n = 0; n < 200; n++) {
      const frame = clientFrame(Opcode.Text, payload);
      expect(frame[0]).toBe(0x81);
      expect(frame[1]).toBe(0x80 | payload.length);
      const key = frame.subarray(2, 6);
      keys.add(key.toString('hex'));
      expect(Buffer.from(frame.subarray(6).map((byte, i) => byte ^ key[i & 3]!))).toEqual(payload);
    }
    // 32 random bits a key: 200 of them all differ but for a chance of about 5 in a million.
    expect(keys.size).toBe(200);
  });
});
