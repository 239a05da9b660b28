import { describe, expect, it } from 'vitest';
import { privateMarks } from './recording.js';

/** Where a recording leaves out ptydeck's own marks: what a terminal would take as one OSC, nothing else. */
describe('privateMarks', () => {
  const marks = (text: string) => privateMarks(Buffer.from(text, 'latin1'));

  it('finds the key, nonce and keyed marks, ended by BEL or ST, and leaves other OSCs alone', () => {
    expect(marks('a\x1b]6973;key;abc\x07b')).toEqual([[1, 16]]);
    expect(marks('a\x1b]133;D;0;k=ff\x1b\\b\x1b]7;file://x\x07')).toEqual([[1, 17]]);
    expect(marks('\x1b]133;A\x07\x1b]633;E;ls;k=1;h=0\x07\x1b]0;title k=\x07')).toEqual([[8, 27]]);
  });

  it('an OSC another ESC aborts is not a mark, and one cut off by the end of the log is', () => {
    expect(marks('\x1b]6973;key;ab\x1b[31mred\x1b]6973;x')).toEqual([[21, 29]]);
    expect(marks('\x1b]\x1b]6973;q\x07')).toEqual([[2, 11]]);
    expect(marks('plain \x1b[0m text')).toEqual([]);
  });
});
