import { describe, expect, it } from 'vitest';
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
});
