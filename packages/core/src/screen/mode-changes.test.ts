import { describe, expect, it } from 'vitest';
import { SequenceScanner } from '../vt/index.js';
import { modeChanges } from './mode-changes.js';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('modeChanges', () => {
  it('keeps private modes and scroll regions in order, and only the last colors', () => {
    const out = modeChanges(bytes('a\x1b[31mred\x1b[?1049h\x1b[Hé text\x1b[2;20r\x1b[?25l\x1b[1;32mgreen\x1b[2Kmore'));
    expect(out).toBe('\x1b[?1049h\x1b[2;20r\x1b[?25l\x1b[1;32m');
  });

  it('forgets what came before a full reset', () => {
    expect(modeChanges(bytes('\x1b[?1049h\x1b[33mx\x1bc\x1b[?25l plain'))).toBe('\x1bc\x1b[?25l');
  });

  it('finds nothing in plain text', () => {
    expect(modeChanges(bytes('line one\r\nline two\r\n'))).toBe('');
  });

  it('is what the same scan with text parameters finds, on random output', () => {
    // modeChanges as it was written on the scanner's text handler, before it kept colors as bytes.
    const withText = (data: Uint8Array): string => {
      let out = '';
      let lastColors: string | null = null;
      const scanner = new SequenceScanner();
      scanner.on({
        csiFinals: 'hlrm',
        csi: (params, final) => {
          if (final === 'm') {
            if (/^[\d;:]*$/.test(params)) lastColors = params;
          } else if (final === 'r' ? /^\d*(?:;\d*)?$/.test(params) : /^\?[\d;]*$/.test(params)) {
            out += `\x1b[${params}${final}`;
          }
        },
        esc: (intermediates, final) => {
          if (intermediates !== '' || final !== 'c') return;
          out = '\x1bc';
          lastColors = null;
        },
      });
      scanner.scan(0, data);
      return lastColors === null ? out : `${out}\x1b[${lastColors}m`;
    };
    let seed = 34;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const pieces = ['\x1b[', '\x1b', ']', '\x07', '\x18', '\\', 'P', 'c', '(', '0', '1;', '38;5;', ':', '?', '25', 'h', 'l', 'm', 'r', ' ', '\n', 'é', '>', '\x1b[?1049h', '\x1b[2;20r', '\x1bc', '\x1b[0m', '1;'.repeat(33)];
    let found = 0;
    for (let round = 0; round < 2000; round++) {
      const data = bytes(Array.from({ length: 4 + random(40) }, () => pieces[random(pieces.length)]).join(''));
      const expected = withText(data);
      if (expected !== '') found++;
      expect(modeChanges(data)).toBe(expected);
    }
    expect(found).toBeGreaterThan(500);
  });
});
