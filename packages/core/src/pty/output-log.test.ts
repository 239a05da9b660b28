import { describe, expect, it } from 'vitest';
import { OutputLog } from './output-log.js';

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (data: Uint8Array) => new TextDecoder('utf-8', { fatal: true }).decode(data);

describe('OutputLog', () => {
  it('addresses appended chunks by absolute cursors', () => {
    const log = new OutputLog();
    expect(log.append(bytes('hello '))).toBe(0);
    expect(log.append(bytes('world'))).toBe(6);
    expect(log.end).toBe(11);
    const all = log.readFrom();
    expect(text(all.data)).toBe('hello world');
    expect(all).toMatchObject({ cursor: 0, next: 11, skipped: 0 });
    const tail = log.readFrom(4, 4);
    expect(text(tail.data)).toBe('o wo');
    expect(tail).toMatchObject({ cursor: 4, next: 8, skipped: 0 });
    expect(log.readFrom(11).data.length).toBe(0);
  });

  it('keeps the appended chunk without copying it', () => {
    const log = new OutputLog();
    const chunk = bytes('abc');
    log.append(chunk);
    chunk[0] = 0x7a;
    expect(text(log.readFrom().data)).toBe('zbc');
  });

  it('counts trimmed bytes as skipped', () => {
    const log = new OutputLog();
    for (let i = 0; i < 10; i++) log.append(bytes('0123456789'));
    expect(log.trimTo(25)).toBe(75);
    expect(log.start).toBe(75);
    expect(log.size).toBe(25);
    const slice = log.readFrom(0);
    expect(slice).toMatchObject({ cursor: 75, next: 100, skipped: 75 });
    expect(text(slice.data)).toBe('5678901234567890123456789');
    expect(log.readFrom(80).skipped).toBe(0);
  });

  it('never trims into the middle of a UTF-8 sequence', () => {
    // "é" is 2 bytes, "€" 3, "😀" 4: cut at every offset and check the start.
    const sample = 'aé€😀b'.repeat(4);
    const encoded = bytes(sample);
    for (let keep = 0; keep <= encoded.length; keep++) {
      const log = new OutputLog();
      // Feed in 1-byte chunks so sequences also span chunk boundaries.
      for (const byte of encoded) log.append(Uint8Array.of(byte));
      const dropped = log.trimTo(keep);
      expect(log.size).toBeLessThanOrEqual(keep);
      expect(dropped + log.size).toBe(encoded.length);
      const slice = log.readFrom(0);
      expect(slice.skipped).toBe(dropped);
      expect(() => text(slice.data)).not.toThrow();
      expect(sample.endsWith(text(slice.data))).toBe(true);
    }
  });

  it('ends limited reads on a character boundary when it can', () => {
    const log = new OutputLog();
    log.append(bytes('a€b'));
    const first = log.readFrom(0, 2);
    expect(text(first.data)).toBe('a');
    expect(first.next).toBe(1);
    const second = log.readFrom(first.next, 3);
    expect(text(second.data)).toBe('€');
    // A limit smaller than one character still makes progress.
    expect(log.readFrom(1, 1).data.length).toBe(1);
  });

  it('trims oldest bytes by an amount and compacts after many chunks', () => {
    const log = new OutputLog();
    for (let i = 0; i < 5000; i++) log.append(bytes('xy'));
    expect(log.trimBy(7001)).toBe(7001);
    expect(log.start).toBe(7001);
    expect(log.readFrom().data.length).toBe(2999);
    expect(log.clear()).toBe(2999);
    expect(log.size).toBe(0);
    expect(log.append(bytes('z'))).toBe(10000);
    expect(log.readFrom(0)).toMatchObject({ cursor: 10000, skipped: 10000, next: 10001 });
  });

  it('reads any range correctly from either end of a log of many chunks', () => {
    const log = new OutputLog();
    const all: number[] = [];
    for (let i = 0; i < 300; i++) {
      const chunk = Uint8Array.from({ length: (i % 7) + 1 }, (_, j) => (i + j) % 128);
      all.push(...chunk);
      log.append(chunk);
    }
    log.trimBy(50);
    for (const [from, max] of [[50, 10], [60, 500], [all.length - 5, 100], [all.length - 400, 37], [all.length, 5]] as const) {
      const slice = log.readFrom(from, max);
      expect([...slice.data]).toEqual(all.slice(from, Math.min(all.length, from + max)));
    }
  });

  it('reads every range right through appends, trims in mid-chunk, compactions and clears (seeded, against a flat copy)', () => {
    let seed = 13;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const log = new OutputLog();
    const all: number[] = [];
    let start = 0;
    for (let step = 0; step < 8000; step++) {
      const op = random(10);
      if (step === 4000) {
        start += log.clear();
      } else if (op < 5) {
        // ASCII only, so reads are never shortened to a character boundary.
        const chunk = Uint8Array.from({ length: random(40) + 1 }, () => random(128));
        all.push(...chunk);
        log.append(chunk);
      } else if (op < 8) {
        start += log.trimBy(random(60));
      } else {
        const from = start + random(all.length - start + 1);
        const max = random(200) + 1;
        const slice = log.readFrom(from, max);
        expect(slice.cursor).toBe(from);
        expect([...slice.data]).toEqual(all.slice(from, Math.min(all.length, from + max)));
        const viewed = log.readFrom(from, max, true);
        expect(viewed.next).toBe(from + viewed.data.length);
        expect([...viewed.data]).toEqual(all.slice(from, from + viewed.data.length));
        if (from < all.length) expect(viewed.data.length).toBeGreaterThan(0);
      }
      expect(log.start).toBe(start);
    }
  });

  it('reads a copy by default, and with view a view of the chunk when one chunk holds the range', () => {
    const log = new OutputLog();
    const first = bytes('abcdef');
    log.append(first);
    log.append(bytes('ghij'));
    const copied = log.readFrom(1, 3).data;
    const viewed = log.readFrom(1, 3, true).data;
    expect(text(copied)).toBe('bcd');
    expect(text(viewed)).toBe('bcd');
    // The view shares the chunk's memory, the copy does not.
    expect(viewed.buffer).toBe(first.buffer);
    expect(viewed.byteOffset).toBe(1);
    expect(copied.buffer).not.toBe(first.buffer);
    // Across two chunks there is nothing to view: a copy.
    const across = log.readFrom(4, 4, true).data;
    expect(text(across)).toBe('efgh');
    expect(across.buffer).not.toBe(first.buffer);
    // After a trim in the middle of the first chunk, its retained tail still reads as a view.
    log.trimBy(2);
    const tail = log.readFrom(2, 2, true).data;
    expect(text(tail)).toBe('cd');
    expect(tail.buffer).toBe(first.buffer);
  });

  it('with view, stops at the end of a large first chunk instead of copying across it', () => {
    const log = new OutputLog();
    const big = new Uint8Array(20 * 1024).fill(0x61);
    const next = new Uint8Array(20 * 1024).fill(0x62);
    log.append(big);
    log.append(next);
    const slice = log.readFrom(1024, 64 * 1024, true);
    expect(slice.data.length).toBe(19 * 1024);
    expect(slice.data.buffer).toBe(big.buffer);
    expect(slice.next).toBe(20 * 1024);
    // The next read starts on the next chunk: a view again.
    expect(log.readFrom(slice.next, 64 * 1024, true).data.buffer).toBe(next.buffer);
    // Without view, the whole range, copied.
    expect(log.readFrom(1024, 64 * 1024).data.length).toBe(39 * 1024);
    // Small chunks (the event loop's reads) are copied whole, not cut into a frame each.
    const small = new OutputLog();
    for (let i = 0; i < 8; i++) small.append(new Uint8Array(4096).fill(0x30 + i));
    expect(small.readFrom(100, 64 * 1024, true).data.length).toBe(8 * 4096 - 100);
  });

  it('with view, a stop at a chunk end that would split a UTF-8 character backs off to its lead byte', () => {
    const log = new OutputLog();
    const first = new Uint8Array(20 * 1024).fill(0x61);
    first.set([0xe6, 0x97], first.length - 2); // the first two bytes of 日 end the chunk
    log.append(first);
    log.append(Uint8Array.from([0xa5, 0x62]));
    const slice = log.readFrom(0, 64 * 1024, true);
    expect(slice.next).toBe(first.length - 2);
    expect(text(log.readFrom(slice.next, 64 * 1024, true).data)).toBe('日b');
  });
});
