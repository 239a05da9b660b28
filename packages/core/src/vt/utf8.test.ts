import { describe, expect, it } from 'vitest';
import { incompleteTail } from './utf8.js';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('incompleteTail', () => {
  it('counts the bytes of a character cut short at the end, for every cut of two-, three- and four-byte ones', () => {
    for (const char of ['ü', '日', '🙂']) {
      const whole = bytes(`a${char}`);
      for (let cut = 2; cut < whole.length; cut++) expect(incompleteTail(whole.subarray(0, cut))).toBe(cut - 1);
      expect(incompleteTail(whole)).toBe(0);
    }
  });

  it('is 0 on a boundary, for nothing, and for bytes no character could complete', () => {
    expect(incompleteTail(bytes('plain'))).toBe(0);
    expect(incompleteTail(new Uint8Array(0))).toBe(0);
    expect(incompleteTail(Uint8Array.of(0x80, 0x80, 0x80, 0x80))).toBe(0);
    expect(incompleteTail(Uint8Array.of(0x41, 0xff))).toBe(0);
  });
});
