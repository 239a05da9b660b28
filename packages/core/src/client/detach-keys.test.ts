import { describe, expect, it } from 'vitest';
import { DetachKeys } from './detach-keys.js';

const bytes = (text: string) => Buffer.from(text, 'latin1');
const text = (data: Uint8Array) => Buffer.from(data).toString('latin1');

describe('DetachKeys', () => {
  it('passes ordinary keys through and detaches on Ctrl-\\ d, dropping what follows', () => {
    const keys = new DetachKeys();
    expect(text(keys.feed(bytes('ls\r')).forward)).toBe('ls\r');
    const verdict = keys.feed(bytes('ab\x1cdcd'));
    expect(verdict).toMatchObject({ detach: true });
    expect(text(verdict.forward)).toBe('ab');
  });

  it('holds the prefix across chunks until the next key says what it was', () => {
    const keys = new DetachKeys();
    expect(keys.feed(bytes('x\x1c'))).toMatchObject({ detach: false });
    expect(keys.feed(bytes('d')).detach).toBe(true);
    const other = new DetachKeys();
    expect(text(other.feed(bytes('\x1c')).forward)).toBe('');
    expect(text(other.feed(bytes('q')).forward)).toBe('\x1cq');
  });

  it('sends one Ctrl-\\ for two, so a program can still get it', () => {
    const keys = new DetachKeys();
    const verdict = keys.feed(bytes('\x1c\x1cd'));
    expect(verdict.detach).toBe(false);
    expect(text(verdict.forward)).toBe('\x1cd');
  });
});
