import { describe, expect, it } from 'vitest';
import { encodeKeys } from './keys.js';

describe('encodeKeys', () => {
  it('encodes the named keys', () => {
    expect(encodeKeys(['Enter', 'Tab', 'Escape', 'Backspace'])).toEqual({ ok: true, data: '\r\t\x1b\x7f' });
    expect(encodeKeys(['Up', 'Down', 'Right', 'Left', 'Home', 'End'])).toEqual({ ok: true, data: '\x1b[A\x1b[B\x1b[C\x1b[D\x1b[H\x1b[F' });
  });

  it('follows application cursor mode for cursor keys', () => {
    expect(encodeKeys(['Up', 'End'], true)).toEqual({ ok: true, data: '\x1bOA\x1bOF' });
  });

  it('encodes Ctrl with any letter, case-insensitively', () => {
    expect(encodeKeys(['Ctrl-C', 'ctrl-d', 'Ctrl-Z', 'Ctrl-L', 'Ctrl-a'])).toEqual({ ok: true, data: '\x03\x04\x1a\x0c\x01' });
  });

  it('lists every unknown name', () => {
    expect(encodeKeys(['Enter', 'F13', 'Ctrl-1'])).toEqual({ ok: false, unknown: ['F13', 'Ctrl-1'] });
  });
});
