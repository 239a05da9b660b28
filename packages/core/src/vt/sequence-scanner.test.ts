import { describe, expect, it } from 'vitest';
import { SequenceScanner, type SequenceHandlers } from './sequence-scanner.js';

const bytes = (text: string) => Buffer.from(text, 'utf8');

/** Every handler kind at once, as an agent session's scan carries the title's, the stream's and more; returns what they saw. */
function recordAll(scanner: SequenceScanner): () => string[] {
  const seen: string[] = [];
  let text = '';
  const flushText = () => {
    if (text !== '') seen.push(`text ${JSON.stringify(text)}`);
    text = '';
  };
  scanner.on({
    osc: (payload, start, end) => {
      flushText();
      seen.push(`osc ${Buffer.from(payload).toString('utf8')} ${start}-${end}`);
    },
    csiFinals: 'hlmrKHJ',
    csi: (params, final, end) => {
      flushText();
      seen.push(`csi ${params}${final} ${end}`);
    },
    esc: (intermediates, final, end) => {
      flushText();
      seen.push(`esc ${intermediates}${final} ${end}`);
    },
    // Text comes in runs that a chunk boundary may cut: joined, it must be the same.
    text: (data, from, to) => {
      text += Buffer.from(data.subarray(from, to)).toString('latin1');
    },
  });
  return () => {
    flushText();
    return [...seen];
  };
}

function scanChunks(chunks: Uint8Array[], record: (scanner: SequenceScanner) => () => string[] = recordAll) {
  const scanner = new SequenceScanner();
  const seen = record(scanner);
  const safeEnds: number[] = [];
  for (const chunk of chunks) {
    scanner.scan(scanner.end, chunk);
    safeEnds.push(scanner.safeEnd);
  }
  return { seen: seen(), safeEnd: scanner.safeEnd, safeEnds };
}

const MIXED =
  'héllo \x1b[1;31mred\x1b[0m\x1b]0;tïtle\x07\x1b]133;A;k=1\x1b\\$ \x1b]133;B\x07ls\r\n' +
  '\x1b[?1049h\x1b[?1h\x1b[2;20r\x1b(B\x1bP1$r\x1b\\\x1b]8;;http://x\x07link\x1b]8;;\x07\x1bc' +
  '\x1b]0;abort\x1b[K\x1b_apc\x07€ \x1b[?1049l\x1b]7;file://h/tmp\x1b\\😀 end';

describe('SequenceScanner', () => {
  it('hands every handler the same sequences however one chunk is split, at every byte', () => {
    const data = bytes(MIXED);
    const whole = scanChunks([data]);
    expect(whole.seen).toContain('osc 0;tïtle 21-32');
    expect(whole.seen).toContain('csi ?1049h 67');
    expect(whole.seen).toContain('esc (B 82');
    for (let split = 1; split < data.length; split++) {
      expect(scanChunks([data.subarray(0, split), data.subarray(split)]).seen).toEqual(whole.seen);
    }
    // And fed one byte at a time.
    expect(scanChunks([...data].map((byte) => Uint8Array.of(byte))).seen).toEqual(whole.seen);
  });

  it('finds the same OSC sequences when OSC handlers are all it has (its fast ground) as with every handler', () => {
    const oscOnly = (scanner: SequenceScanner) => {
      const seen: string[] = [];
      scanner.on({ osc: (payload, start, end) => seen.push(`osc ${Buffer.from(payload).toString('utf8')} ${start}-${end}`) });
      return () => seen;
    };
    const oscOf = (seen: string[]) => seen.filter((line) => line.startsWith('osc '));
    // Random output over the bytes that matter, split at random: the two grounds must agree on every OSC.
    let seed = 27;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const alphabet = bytes('\x1b]\x1b[\\\x07\x18Pc0;2?hx_\n€');
    for (let round = 0; round < 300; round++) {
      const data = Uint8Array.from({ length: 64 }, () => alphabet[random(alphabet.length)]!);
      const chunks: Uint8Array[] = [];
      for (let at = 0; at < data.length; ) {
        const next = Math.min(data.length, at + 1 + random(12));
        chunks.push(data.subarray(at, next));
        at = next;
      }
      expect(scanChunks(chunks, oscOnly).seen).toEqual(oscOf(scanChunks(chunks).seen));
    }
    expect(scanChunks([bytes(MIXED)], oscOnly).seen).toEqual(oscOf(scanChunks([bytes(MIXED)]).seen));
  });

  it('hands a csiBytes handler the parameters and final byte a csi handler gets as text, however the output is split', () => {
    const asBytes = (scanner: SequenceScanner) => {
      const seen: string[] = [];
      scanner.on({
        csiFinals: 'hlmrKHJ',
        csiBytes: (params, length, final, end) => seen.push(`csi ${Buffer.from(params.subarray(0, length)).toString('latin1')}${String.fromCharCode(final)} ${end}`),
      });
      return () => seen;
    };
    const csiOf = (seen: string[]) => seen.filter((line) => line.startsWith('csi '));
    const colored = bytes('\x1b[1;38;5;42merror\x1b[0m \x1b[38;2;1;254;3mnote\x1b[39m \x1b[4;48;5;9mx\x1b[24;49m\r\n');
    const long = bytes(`\x1b[${'1;'.repeat(40)}m`); // past the 64 parameter bytes a handler is given
    for (const data of [bytes(MIXED), colored, long]) {
      const whole = csiOf(scanChunks([data]).seen);
      expect(whole.length).toBeGreaterThan(0);
      expect(scanChunks([data], asBytes).seen).toEqual(whole);
      for (let split = 1; split < data.length; split++) {
        expect(scanChunks([data.subarray(0, split), data.subarray(split)], asBytes).seen).toEqual(whole);
      }
    }
    // Both kinds on one scanner, on the same sequences.
    const scanner = new SequenceScanner();
    const text: string[] = [];
    const raw: number[] = [];
    scanner.on({ csiFinals: 'm', csi: (params, final) => text.push(`${params}${final}`) });
    scanner.on({ csiFinals: 'm', csiBytes: (_params, length, final) => raw.push(length, final) });
    scanner.scan(0, colored);
    expect(text).toEqual(['1;38;5;42m', '0m', '38;2;1;254;3m', '39m', '4;48;5;9m', '24;49m']);
    expect(raw).toEqual([9, 0x6d, 1, 0x6d, 12, 0x6d, 2, 0x6d, 8, 0x6d, 5, 0x6d]);
  });

  it('keeps safeEnd before a sequence or a UTF-8 character that is not complete, across chunks', () => {
    const emoji = bytes('a😀');
    for (let cut = 1; cut <= emoji.length; cut++) {
      const { safeEnds } = scanChunks([emoji.subarray(0, cut), emoji.subarray(cut)]);
      expect(safeEnds).toEqual([cut === 1 || cut === emoji.length ? cut : 1, emoji.length]);
    }
    // Three chunks: the character's lead byte is in the first.
    expect(scanChunks([emoji.subarray(0, 2), emoji.subarray(2, 3), emoji.subarray(3, 4), emoji.subarray(4)]).safeEnds).toEqual([1, 1, 1, 5]);
    expect(scanChunks([bytes('ab\x1b[3')]).safeEnd).toBe(2);
    expect(scanChunks([bytes('ab\x1b]0;x\x1b')]).safeEnd).toBe(2);
    expect(scanChunks([bytes('ab\x1b]0;x\x1b\\')]).safeEnd).toBe(9);
  });

  it('stops a handler that unsubscribed, and tells the others', () => {
    const scanner = new SequenceScanner();
    const first: string[] = [];
    const second: string[] = [];
    const handlers = (into: string[]): SequenceHandlers => ({ csiFinals: 'm', csi: (params) => into.push(params) });
    const off = scanner.on(handlers(first));
    scanner.on(handlers(second));
    scanner.scan(0, bytes('\x1b[1m'));
    off();
    scanner.scan(scanner.end, bytes('\x1b[2m'));
    expect(first).toEqual(['1']);
    expect(second).toEqual(['1', '2']);
  });
});
