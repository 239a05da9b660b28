import { describe, expect, it } from 'vitest';
import { printable, terminalSafeJson } from './printable.js';

describe('printable', () => {
  it('makes every C0, DEL and C1 control a space, and keeps the rest of the text', () => {
    expect(printable('a\x1b]52;c;?\x07b')).toBe('a ]52;c;? b');
    expect(printable('tab\there\r\nnext\x7f')).toBe('tab here  next ');
    // C1 as a terminal reading UTF-8 takes it: U+009B is CSI, U+009D is OSC, U+0090 is DCS.
    expect(printable('x\u009b6ny\u009d0;t\u009cz\u0090q\u0085')).toBe('x 6ny 0;t z q ');
    expect(printable('héllo 世界 🙂 ~/src')).toBe('héllo 世界 🙂 ~/src');
  });

  it('flattens the bidirectional overrides that make a line read otherwise than it is', () => {
    expect(printable('safe\u202eexe.txt\u2066x\u2069')).toBe('safe exe.txt x ');
  });

  it('writes JSON whose controls are all escapes, parsing back to the same value', () => {
    const value = { title: 'a\u009b6n\x1b[31m\x7f\u202eb', cwd: '/tmp/é' };
    const json = terminalSafeJson(value);
    expect(json).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e]/);
    expect(json).toContain('\\u009b');
    expect(JSON.parse(json)).toEqual(value);
  });
});
