import { describe, expect, it } from 'vitest';
import { BufferPool } from './buffer-pool.js';
import { OutputLog, SLAB_BYTES } from './output-log.js';

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

  it('starts at a given cursor, carrying on a log kept elsewhere, and counts what came before as skipped', () => {
    const log = new OutputLog(undefined, 5000);
    expect(log.start).toBe(5000);
    expect(log.end).toBe(5000);
    expect(log.append(bytes('kept'))).toBe(5000);
    expect(log.readFrom(5002)).toEqual({ data: bytes('pt'), cursor: 5002, next: 5004, skipped: 0 });
    expect(log.readFrom(0)).toMatchObject({ cursor: 5000, skipped: 5000 });
    expect(log.clear()).toBe(4);
    expect(log.append(bytes('!'))).toBe(5004);
    expect(() => new OutputLog(undefined, -1)).toThrow(RangeError);
  });

  it('keeps a copy of the appended chunk: its buffer is the caller\'s again once append returns', () => {
    const log = new OutputLog();
    const chunk = bytes('abc');
    log.append(chunk);
    chunk[0] = 0x7a;
    expect(text(log.readFrom().data)).toBe('abc');
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
    // Small slabs, so chunks span them; slabs come back when trimmed or cleared, and are scribbled over before the next take.
    const returned: ArrayBuffer[] = [];
    const pool = new BufferPool(64, 4);
    const log = new OutputLog({
      size: pool.size,
      take: () => pool.take().fill(0xee),
      give: (slab) => {
        slab.fill(0xff);
        returned.push(slab.buffer as ArrayBuffer);
        pool.give(slab);
      },
    });
    const target = new Uint8Array(150);
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
        // The caller's buffer is theirs again (a read thread batch is filled again).
        chunk.fill(0xdd);
      } else if (op < 8) {
        start += log.trimBy(random(60));
      } else {
        const from = start + random(all.length - start + 1);
        const max = random(200) + 1;
        const slice = log.readFrom(from, max);
        expect(slice.cursor).toBe(from);
        expect([...slice.data]).toEqual(all.slice(from, Math.min(all.length, from + max)));
        // Into a reused buffer, dirty from the last read and smaller than some reads: the same bytes, at most its length.
        const into = log.readFrom(from, max, target);
        expect(into.next).toBe(from + into.data.length);
        expect([...into.data]).toEqual(all.slice(from, Math.min(all.length, from + max, from + target.length)));
        if (into.data.length > 0) expect(into.data.buffer).toBe(target.buffer);
      }
      expect(log.start).toBe(start);
    }
    expect(returned.length).toBeGreaterThan(100);
  });

  it('reads a copy by default, or into a given array', () => {
    const log = new OutputLog();
    const first = bytes('abcdef');
    log.append(first);
    log.append(bytes('ghij'));
    const copied = log.readFrom(1, 3).data;
    expect(text(copied)).toBe('bcd');
    expect(copied.buffer).not.toBe(first.buffer);
    const target = new Uint8Array(4).fill(0x7a);
    const across = log.readFrom(4, 64, target);
    // At most the target's length, from its start, across chunks.
    expect(text(across.data)).toBe('efgh');
    expect(across.data.buffer).toBe(target.buffer);
    expect(across.next).toBe(8);
    expect(text(log.readFrom(8, 64, target).data)).toBe('ij');
  });

  it('gives a slab back once trimmed or cleared, never while a byte of it is retained', () => {
    const given: Uint8Array[] = [];
    const pool = new BufferPool(8, 16);
    const log = new OutputLog({ size: 8, take: () => pool.take(), give: (slab) => given.push(slab) });
    // A new log's slabs start small and double: 256 bytes is the first; the pool's size caps them at 8 here.
    log.append(bytes('abcdefgh')); // one 8-byte slab from the pool
    log.append(bytes('ijkl'));
    log.trimBy(7); // 'h' is still retained
    expect(given).toEqual([]);
    log.trimBy(1);
    expect(given.map((slab) => text(slab))).toEqual(['abcdefgh']);
    expect(text(log.readFrom().data)).toBe('ijkl');
    log.clear();
    expect(given.length).toBe(2);
    expect(log.append(bytes('m'))).toBe(12);
    expect(text(log.readFrom().data)).toBe('m');
  });

  it('holds buffers of at most what it retains plus two slabs, however the chunks it is given are cut from larger buffers', () => {
    // node-pty's chunks are views of larger buffers; a log that kept them kept the larger buffers alive.
    const pool = new BufferPool(SLAB_BYTES, 8);
    const cap = 256 * 1024;
    const log = new OutputLog(pool);
    const parent = new Uint8Array(64 * 1024);
    let seed = 7;
    for (let i = 0; i < 2000; i++) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      const length = 1 + (seed % 4096);
      const chunk = parent.subarray(seed % 1024, (seed % 1024) + length).fill(0x61 + (i % 26));
      log.append(chunk);
      log.trimTo(cap);
      expect(log.size).toBeLessThanOrEqual(cap);
      expect(log.bufferBytes).toBeLessThanOrEqual(log.size + 2 * SLAB_BYTES);
    }
    expect(log.size).toBeGreaterThan(cap - 4);
    // A small log holds a small slab, not a full one.
    const small = new OutputLog(pool);
    small.append(bytes('$ '));
    expect(small.bufferBytes).toBeLessThan(1024);
  });

  it('keeps an adopted batch in order among copied chunks, reads across it, and gives its buffer back once trimmed', () => {
    const given: Uint8Array[] = [];
    const slabs = new BufferPool(SLAB_BYTES, 8);
    const batch = new Uint8Array(64 * 1024);
    const pool = { size: SLAB_BYTES, take: () => slabs.take(), give: (buffer: Uint8Array) => (buffer.buffer === batch.buffer ? given.push(buffer) : slabs.give(buffer)) };
    const log = new OutputLog(pool);
    const adopted = batch.subarray(0, 62 * 1024).fill(0x62);
    expect(log.append(bytes('aaa'))).toBe(0);
    expect(log.adopt(adopted)).toBe(3);
    expect(log.append(bytes('ccc'))).toBe(3 + adopted.length);
    const end = 6 + adopted.length;
    expect(log.end).toBe(end);
    // Not copied: the log reads what the batch holds.
    batch[0] = 0x42;
    const all = log.readFrom();
    expect(all.data.length).toBe(end);
    expect(text(all.data.subarray(0, 5))).toBe('aaaBb');
    expect(text(all.data.subarray(end - 5))).toBe('bbccc');
    expect(text(log.readFrom(end - 4, 2).data)).toBe('bc');
    // The slab before the batch is closed: the copy after it starts a new one, at full size once past the first slabs.
    expect(log.bufferBytes).toBeLessThanOrEqual(batch.byteLength + 2 * SLAB_BYTES);
    log.trimTo(4);
    expect(text(log.readFrom().data)).toBe('bccc');
    expect(given).toEqual([]);
    log.trimTo(3);
    expect(given.length).toBe(1);
    expect(given[0]!.buffer).toBe(batch.buffer);
    expect(text(log.readFrom().data)).toBe('ccc');
    log.clear();
    expect(given.length).toBe(1);
  });
});
