import { describe, expect, it } from 'vitest';
import { randomHex } from './random-hex.js';
import { newChallenge, proofHolds, proofOf } from './server-proof.js';
import { createHmac } from 'node:crypto';

describe('randomHex', () => {
  it('gives as many random bytes as asked, as hex, never the same twice', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 100; i++) {
      const hex = randomHex(32);
      expect(hex).toMatch(/^[0-9a-f]{64}$/);
      seen.add(hex);
    }
    expect(seen.size).toBe(100);
    expect(randomHex(4)).toMatch(/^[0-9a-f]{8}$/);
  });
});

describe('the server proof', () => {
  it('is the HMAC-SHA256 of the challenge under the token, and holds only for it', () => {
    const challenge = newChallenge();
    expect(challenge).toMatch(/^[0-9a-f]{64}$/);
    const proof = proofOf('a token', challenge);
    expect(proof).toBe(createHmac('sha256', 'a token').update(`ptydeck server proof v1\0${challenge}`).digest('hex'));
    expect(proofHolds('a token', challenge, proof)).toBe(true);
    expect(proofHolds('another token', challenge, proof)).toBe(false);
    expect(proofHolds('a token', newChallenge(), proof)).toBe(false);
    expect(proofHolds('a token', challenge, proof.toUpperCase())).toBe(false);
  });
});
