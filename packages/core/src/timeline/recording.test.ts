import { afterAll, describe, expect, it } from 'vitest';
import { createPtyService } from '../pty/pty-service.js';
import { createTerminalTool } from '../terminal-tool/terminal-tool.js';
import { isolatedEnv } from '../testing/isolated-env.js';
import { clipboardSequences, privateMarks } from './recording.js';
import { Timeline } from './timeline.js';

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

  it("a log trimmed inside a mark: the mark's tail at its start is left out, the key with it", () => {
    // The log keeps its last bytes, cut anywhere: here inside the prompt's keyed mark, after its ESC ] 133;D.
    const tail = (text: string) => privateMarks(Buffer.from(text, 'latin1'), { startsMidStream: true });
    expect(tail(';0;k=ff00ff\x07$ ls\r\n')).toEqual([[0, 12]]);
    expect(tail('ey;abc123\x1b\\$ ls')).toEqual([[0, 11]]);
    // Text before a line break, or an ESC that starts a sequence, is output, not a mark's tail.
    expect(tail('make: done\r\nbell\x07')).toEqual([]);
    expect(tail('red\x1b[31m\x07')).toEqual([]);
    // A log that starts with the session starts at no sequence's middle.
    expect(marks(';0;k=ff00ff\x07$ ls')).toEqual([]);
  });
});

describe('clipboardSequences', () => {
  const found = (text: string) => clipboardSequences(Buffer.from(text, 'latin1'));

  it("finds the clipboard's OSCs in 7-bit and UTF-8 C1 form, to their BEL, ST or the end, and no other OSC", () => {
    expect(found('a\x1b]52;c;eA==\x07b')).toEqual([[1, 13]]);
    expect(found('\x1b]052;;eA==\x1b\\\xc2\x9d52;c;eA==\xc2\x9c')).toEqual([[0, 13], [13, 26]]);
    expect(found('\x1b]1337;CopyToClipboard=\x07text\x1b]5522;type=read')).toEqual([[0, 24], [28, 44]]);
    expect(found('\x1b]0;52;title\x07\x1b]520;x\x07\x1b]7;file:///52;\x07')).toEqual([]);
  });

  it('reads them as a terminal does: a C0 control between ESC and `]` or in the number leaves an OSC 52 (xterm.js takes each)', () => {
    expect(found('a\x1b\x00]52;c;eA==\x07b')).toEqual([[1, 14]]);
    expect(found('\x1b\x05\x7f]52;c;eA==\x07')).toEqual([[0, 14]]);
    expect(found('\x1b]5\x012;c;eA==\x07\xc2\x9d\x1f52\x00;c;eA==\x07')).toEqual([[0, 13], [13, 27]]);
    expect(found('\x1b]1337\x02;CopyToClipboard=\x07\x1b]52\x1b\\')).toEqual([[0, 25], [25, 31]]);
    // CAN and SUB abort the ESC; DEL in an OSC is part of its text, so `5<DEL>2` is no 52.
    expect(found('\x1b\x18]52;c;eA==\x07\x1b\x1a]52;c;eA==\x07\x1b]5\x7f2;c;eA==\x07')).toEqual([]);
  });
});

describe('a recording of a session whose log was trimmed inside a mark', () => {
  const service = createPtyService({ env: isolatedEnv(), sessionLogBytes: 4096 });
  const tool = createTerminalTool(service);
  const timeline = new Timeline(service);
  const owner = { id: 'trimmed-mark', name: 'trimmed-mark' };
  afterAll(async () => {
    await tool.closeOwner(owner.id);
    tool.dispose();
    timeline.dispose();
    await service.dispose();
  });

  it("holds none of the shell's key: the mark's tail at the log's start is left out", async () => {
    const shell = await tool.create(owner, {});
    // Commands of growing output move the log's start until it falls inside one of the prompt's keyed marks.
    let head = '';
    let key = '';
    for (let n = 1; n < 400; n++) {
      await tool.run(owner, { id: shell.id, command: `printf '%0${n}d\\n' 0` });
      const data = Buffer.from(service.read(shell.id).data).toString('latin1');
      key = /\x1b\](?:133|633);[^\x07\x1b]*k=([0-9a-zA-Z]+)/.exec(data)?.[1] ?? '';
      head = data.slice(0, data.search(/[\x07\x1b]/));
      if (key !== '' && data[head.length] === '\x07' && !/[\x00-\x1f]/.test(head) && head.includes(`k=${key}`)) break;
      head = '';
    }
    expect(head, 'no trim fell inside a keyed mark').not.toBe('');
    for (const format of ['asciicast-v3', 'asciicast-v2', 'text'] as const) expect(timeline.recording(shell.id, format), format).not.toContain(key);
  });
});

