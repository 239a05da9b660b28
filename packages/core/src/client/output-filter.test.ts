import { describe, expect, it } from 'vitest';
import { MAX_COLS, MAX_ROWS } from '@ptydeck/contract';
import { OutputFilter } from './output-filter.js';

const ESC = '\x1b';

/** Everything a session may write to make the terminal that shows it answer, or reach past its screen. */
const REQUESTS = [
  `${ESC}]52;c;aGVsbG8=\x07`, // OSC 52: set the clipboard
  `${ESC}]52;c;?${ESC}\\`, // OSC 52: read it back, as typed input
  `${ESC}]0;title${ESC}\\`,
  `${ESC}]2;title\x07`,
  `${ESC}]8;;https://example.com\x07link${ESC}]8;;\x07`,
  `${ESC}]11;?\x07`, // background colour query
  `${ESC}[6n`, // cursor position report
  `${ESC}[?6n`,
  `${ESC}[5n`,
  `${ESC}[c`, // DA1
  `${ESC}[0c`,
  `${ESC}[>c`, // DA2
  `${ESC}[=c`, // DA3
  `${ESC}[>0q`, // XTVERSION
  `${ESC}[?2004$p`, // DECRQM
  `${ESC}P$qm${ESC}\\`, // DECRQSS
  `${ESC}P+q544e${ESC}\\`, // XTGETTCAP
  `${ESC}_Gi=1,a=q;${ESC}\\`, // kitty graphics query (APC)
  `${ESC}[18t`, // window size report
  `${ESC}[8;100;200t`, // resize the window
  `${ESC}[?1000h`,
  `${ESC}[?1002h`,
  `${ESC}[?1003h`,
  `${ESC}[?1006h`,
  `${ESC}[?1004h`, // focus events
  `${ESC}[>4;2m`, // modifyOtherKeys
  `${ESC}[>1u`, // kitty keyboard flags
  `${ESC}[?u`,
  `${ESC}[3J`, // the terminal's own scrollback
  `${ESC}Z`, // DECID
  `${ESC} G`, // S8C1T
  `${ESC}c`,
  '\x05', // ENQ: answerback
  '\u009b6n', // C1 CSI, as UTF-8
  '\u009d52;c;?\u0007',
];

describe('OutputFilter', () => {
  it('drops every report request, OSC, control string and input mode, whole', () => {
    for (const request of REQUESTS) {
      // No control may remain. Text is text: a C1 CSI's "6n" is drawn as two characters, a link's text stays, BEL rings.
      const drawn = new OutputFilter().filter(`a${request}b`);
      expect(drawn.replace(/link|\x07|6n|52;c;\?/g, ''), JSON.stringify(request)).toBe('ab');
    }
  });

  it('keeps text, colours, cursor movement, erase, scroll regions, the alternate screen, bracketed paste and cursor visibility', () => {
    const drawing = [
      'héllo 世界 🙂\r\n\ttab\x08\x07',
      `${ESC}[1;31mred${ESC}[0m`,
      `${ESC}[38;2;10;20;30m${ESC}[48:5:200m`,
      `${ESC}[10;5H${ESC}[2A${ESC}[3C${ESC}[K${ESC}[2J${ESC}[1;20r${ESC}[S${ESC}[2L`,
      `${ESC}[?1049h${ESC}[?2004h${ESC}[?25l${ESC}[?1h${ESC}=`,
      `${ESC}7${ESC}8${ESC}M${ESC}(0lqk${ESC}(B`,
      `${ESC}[2 q${ESC}[!p`,
    ];
    for (const text of drawing) expect(new OutputFilter().filter(text)).toBe(text);
  });

  it("bounds the counts a terminal carries out once per count, so a session cannot hold the developer's terminal for hours", () => {
    // xterm.js (VS Code's terminal and others) scrolled 2147483647 times for the first: one sequence froze it.
    const filter = new OutputFilter();
    expect(filter.filter(`${ESC}[2147483647S${ESC}[99999T${ESC}[2147483647L${ESC}[2147483647;1M`)).toBe(`${ESC}[${MAX_ROWS}S${ESC}[${MAX_ROWS}T${ESC}[${MAX_ROWS}L${ESC}[${MAX_ROWS};1M`);
    expect(filter.filter(`x${ESC}[2147483647b${ESC}[2147483647I${ESC}[2147483647Z`)).toBe(`x${ESC}[${MAX_COLS}b${ESC}[${MAX_COLS}I${ESC}[${MAX_COLS}Z`);
    expect(filter.filter(`${ESC}[2147483647:1S`)).toBe(`${ESC}[${MAX_ROWS}:1S`);
    // Counts within the largest screen pass as they are.
    expect(filter.filter(`${ESC}[3S${ESC}[${MAX_COLS}b`)).toBe(`${ESC}[3S${ESC}[${MAX_COLS}b`);
  });

  it('keeps the drawing modes of a mode list and drops the rest', () => {
    const filter = new OutputFilter();
    expect(filter.filter(`${ESC}[?1049;1000;1006;2004h`)).toBe(`${ESC}[?1049;2004h`);
    expect(filter.filter(`${ESC}[?1000;1006l`)).toBe('');
  });

  it('holds a sequence cut across chunks until it ends, byte by byte', () => {
    const stream = `x${ESC}]52;c;?\x07y${ESC}[6nz${ESC}[?1000;25h${ESC}[1mé\u009b6n`;
    const filter = new OutputFilter();
    let drawn = '';
    for (const byte of Buffer.from(stream)) drawn += filter.filter(Uint8Array.of(byte));
    expect(drawn).toBe(`xyz${ESC}[?25h${ESC}[1mé6n`);
  });

  it('forgets a sequence in progress on reset: a fresh screen starts clean', () => {
    const filter = new OutputFilter();
    expect(filter.filter(`a${ESC}]0;ti`)).toBe('a');
    filter.reset();
    expect(filter.filter('tle\x07b')).toBe('tle\x07b');
  });
});
