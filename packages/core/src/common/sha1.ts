// SHA-1 (FIPS 180-4) for the one hash a WebSocket client checks, without loading node:crypto.

/**
 * The SHA-1 digest of `data`. `ptydeck attach` checks the server's
 * Sec-WebSocket-Accept with it (RFC 6455 section 4.1: SHA-1 of the key it
 * sent and a fixed GUID, 60 bytes): node:crypto loads node:stream's
 * neighbours and a dozen modules of its own, about 3 ms of CPU in a 50 ms
 * start (bench figure 12), for one hash of two blocks. Not for anything that
 * needs collision resistance: the handshake uses SHA-1 only to show that the
 * server read the key. sha1.test.ts holds it to node:crypto's.
 */
export function sha1(data: Uint8Array): Buffer {
  const length = data.length;
  // The message, a 1 bit, zeros, and its length in bits as 64 bits: whole 64-byte blocks, as 32-bit big-endian words.
  const words = new Uint32Array((((length + 8) >> 6) + 1) * 16);
  for (let i = 0; i < length; i++) words[i >> 2]! |= data[i]! << (24 - (i & 3) * 8);
  words[length >> 2]! |= 0x80 << (24 - (length & 3) * 8);
  words[words.length - 2] = Math.floor(length / 0x20000000);
  words[words.length - 1] = (length * 8) >>> 0;
  const schedule = new Uint32Array(80);
  let h0 = 0x67452301;
  let h1 = 0xefcdab89;
  let h2 = 0x98badcfe;
  let h3 = 0x10325476;
  let h4 = 0xc3d2e1f0;
  for (let block = 0; block < words.length; block += 16) {
    for (let t = 0; t < 16; t++) schedule[t] = words[block + t]!;
    for (let t = 16; t < 80; t++) {
      const mixed = schedule[t - 3]! ^ schedule[t - 8]! ^ schedule[t - 14]! ^ schedule[t - 16]!;
      schedule[t] = (mixed << 1) | (mixed >>> 31);
    }
    let a = h0;
    let b = h1;
    let c = h2;
    let d = h3;
    let e = h4;
    for (let t = 0; t < 80; t++) {
      const f = t < 20 ? ((b & c) | (~b & d)) + 0x5a827999 : t < 40 ? (b ^ c ^ d) + 0x6ed9eba1 : t < 60 ? ((b & c) | (b & d) | (c & d)) + 0x8f1bbcdc : (b ^ c ^ d) + 0xca62c1d6;
      const next = (((a << 5) | (a >>> 27)) + f + e + schedule[t]!) | 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = next;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
  }
  // Big-endian, byte by byte: writeInt32BE's first call (compiled on first use) took longer than the hash.
  const digest = Buffer.allocUnsafe(20);
  const state = [h0, h1, h2, h3, h4];
  for (let i = 0; i < 20; i++) digest[i] = state[i >> 2]! >>> (24 - (i & 3) * 8);
  return digest;
}
