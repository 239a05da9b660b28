import { MAX_COLS } from '@ptydeck/contract';
import { describe, expect, it } from 'vitest';
import { boundText, renderPlainText, stripEcho } from './model-text.js';

describe('renderPlainText', () => {
  it('removes CSI, OSC, DCS and charset sequences', () => {
    expect(renderPlainText('\x1b[1;31mred\x1b[0m \x1b]0;title\x07ok\x1b(B\x1bP1$r\x1b\\!')).toBe('red ok!');
  });

  it('turns CRLF into newlines', () => {
    expect(renderPlainText('a\r\nb\r\n')).toBe('a\nb\n');
  });

  it('resolves carriage-return overwrites to the final frame', () => {
    expect(renderPlainText('10%\r50%\r100%\ndone')).toBe('100%\ndone');
    expect(renderPlainText('downloading...\rok\x1b[K\n')).toBe('ok\n');
    expect(renderPlainText('abcdef\rxy\n')).toBe('xycdef\n');
  });

  it('applies backspace and erase-line', () => {
    expect(renderPlainText('abc\b\bX\n')).toBe('aXc\n');
    expect(renderPlainText('hello\x1b[2K\rbye')).toBe('bye');
  });

  it('moves the cursor no further right than the widest terminal, so a few bytes cannot make a huge line', () => {
    // 14 bytes of output asked for a 30-million-cell line (and 2e9 ended the host).
    const moved = renderPlainText('\x1b[30000000Cx\n\x1b[30000000Gy');
    expect(moved.length).toBeLessThan(2 * MAX_COLS + 4);
    expect(moved).toBe(`${' '.repeat(MAX_COLS - 1)}x\n${' '.repeat(MAX_COLS - 1)}y`);
    // A line text made long is not cut short by a move: the move stays where it is.
    expect(renderPlainText(`${'a'.repeat(MAX_COLS + 5)}\x1b[3Cb`)).toBe(`${'a'.repeat(MAX_COLS + 5)}b`);
  });

  it('drops other control characters and incomplete trailing sequences', () => {
    expect(renderPlainText('a\x07b\x0ec\x1b[')).toBe('abc');
    expect(renderPlainText('x\x1b]133;D')).toBe('x');
  });

  it('starts every render afresh: a sequence cut off at the end of one takes nothing of the next (one scanner serves them all)', () => {
    expect(renderPlainText('a\x1b]0;title')).toBe('a');
    expect(renderPlainText('bc')).toBe('bc');
    expect(renderPlainText('\x1b[3')).toBe('');
    expect(renderPlainText('1mx')).toBe('1mx');
  });
});

describe('boundText', () => {
  it('leaves short text alone', () => {
    expect(boundText('hello', 256)).toEqual({ text: 'hello', truncated: false, omittedBytes: 0 });
  });

  it('keeps head and tail around an omitted-bytes marker within the budget', () => {
    const lines = Array.from({ length: 2000 }, (_, i) => `line ${i}`).join('\n');
    const bounded = boundText(lines, 1024);
    expect(bounded.truncated).toBe(true);
    expect(bounded.text.startsWith('line 0\n')).toBe(true);
    expect(bounded.text.endsWith('line 1999')).toBe(true);
    expect(bounded.text).toMatch(new RegExp(`\\.\\.\\. ${bounded.omittedBytes} bytes omitted \\.\\.\\.`));
    expect(Buffer.byteLength(bounded.text)).toBeLessThanOrEqual(1024);
    // Everything is accounted for: kept + omitted = original (minus the marker line).
    const kept = Buffer.byteLength(bounded.text.replace(/\.\.\. \d+ bytes omitted \.\.\.\n/, ''));
    expect(kept + bounded.omittedBytes).toBe(Buffer.byteLength(lines));
  });

  it('never splits a UTF-8 character', () => {
    const text = '€'.repeat(1000);
    const bounded = boundText(text, 300);
    expect(bounded.text).not.toContain('\ufffd');
  });
});

describe('stripEcho', () => {
  it('removes echoed input lines', () => {
    expect(stripEcho('1+1\n2\n>>> ', '1+1\r')).toBe('2\n>>> ');
    expect(stripEcho('y\ndone\n', 'y\r')).toBe('done\n');
  });

  it('keeps output when the input was not echoed (passwords)', () => {
    expect(stripEcho('\nwelcome\n', 'secret\r')).toBe('\nwelcome\n');
  });

  it('removes a partial line typed without Enter', () => {
    expect(stripEcho('ls -l', 'ls -l')).toBe('');
  });
});
