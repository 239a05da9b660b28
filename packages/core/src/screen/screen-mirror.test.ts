import { afterEach, describe, expect, it } from 'vitest';
import { MAX_ROWS } from '@ptydeck/contract';
import { ScreenMirror } from './screen-mirror.js';

describe('ScreenMirror', () => {
  let mirror: ScreenMirror;
  afterEach(() => mirror.dispose());

  it('renders the visible screen as text', async () => {
    mirror = new ScreenMirror({ cols: 20, rows: 4 });
    await mirror.write('one\r\ntwo\r\n\x1b[31mthree\x1b[0m');
    expect(mirror.screenText()).toBe('one\ntwo\nthree');
  });

  it("drops a scroll, line insert or delete, tab move or repeat whose count is past any screen: xterm.js carries each out once per count (13 bytes kept it busy for 27 s)", async () => {
    mirror = new ScreenMirror({ cols: 20, rows: 3 });
    await mirror.write('keep\r\nx\x1b[100000b|\x1b[100000:1S\x1b[100000S\x1b[100000T\x1b[100000L\x1b[100000M\x1b[100000Z\x1b[100000I');
    expect(mirror.screenText()).toBe('keep\nx|');
    // Up to the largest screen a session may have, each is carried out as it is.
    await mirror.write('\r\nab\x1b[3b');
    expect(mirror.screenText()).toBe('keep\nx|\nabbbb');
    await mirror.write(`\x1b[${MAX_ROWS}S`);
    expect(mirror.screenText()).toBe('');
  });

  it('shows only the last rows once output scrolls', async () => {
    mirror = new ScreenMirror({ cols: 20, rows: 2 });
    await mirror.write('a\r\nb\r\nc\r\nd');
    expect(mirror.screenText()).toBe('c\nd');
  });

  it('tracks the alternate screen and restores the normal one', async () => {
    mirror = new ScreenMirror({ cols: 20, rows: 3 });
    await mirror.write('shell$ ');
    await mirror.write('\x1b[?1049h\x1b[Hpager page');
    expect(mirror.isAltScreen).toBe(true);
    expect(mirror.screenText()).toBe('pager page');
    await mirror.write('\x1b[?1049l');
    expect(mirror.isAltScreen).toBe(false);
    expect(mirror.screenText()).toBe('shell$');
  });

  it('serializes to sequences that repaint the same screen', async () => {
    mirror = new ScreenMirror({ cols: 20, rows: 3 });
    await mirror.write('x\r\n\x1b[1mbold\x1b[0m');
    const copy = new ScreenMirror({ cols: 20, rows: 3 });
    await copy.write(mirror.serialize());
    expect(copy.screenText()).toBe(mirror.screenText());
    copy.dispose();
  });

  it('resizes', async () => {
    mirror = new ScreenMirror({ cols: 20, rows: 3 });
    mirror.resize(40, 5);
    expect([mirror.cols, mirror.rows]).toEqual([40, 5]);
    await mirror.settled();
    expect([mirror.cols, mirror.rows]).toEqual([40, 5]);
  });

  it('resizes at once when nothing is left to parse, so a read right after sees the new size', async () => {
    mirror = new ScreenMirror({ cols: 10, rows: 3 });
    await mirror.write('a\r\nb\r\nc');
    mirror.resize(10, 2);
    expect(mirror.screenText()).toBe('b\nc');
  });

  it('resizes after the output written before it is parsed, not before', async () => {
    mirror = new ScreenMirror({ cols: 10, rows: 3 });
    // Column 20 does not exist at 10 columns: the cursor stops at the last one.
    void mirror.write('\x1b[20Gx');
    mirror.resize(40, 3);
    void mirror.write('\r\n\x1b[20Gy');
    await mirror.settled();
    expect(mirror.screenText()).toBe(`${' '.repeat(9)}x\n${' '.repeat(19)}y`);
  });

  it('parses a write before write() returns when synchronous (the screen worker), and only then', () => {
    // Pins xterm.js's writeSync: were it gone after an upgrade, the worker would silently parse on timers again.
    mirror = new ScreenMirror({ cols: 20, rows: 3, synchronous: true });
    expect(mirror.parsesSynchronously).toBe(true);
    void mirror.write('now\r\n\x1b[1mbold');
    mirror.resize(10, 2);
    expect(mirror.screenText()).toBe('now\nbold');
    expect([mirror.cols, mirror.rows]).toEqual([10, 2]);

    const later = new ScreenMirror({ cols: 20, rows: 3 });
    expect(later.parsesSynchronously).toBe(false);
    void later.write('later');
    expect(later.screenText()).toBe('');
    later.dispose();
  });

  it.each([true, false])('keeps xterm.js parse buffer at its starting size after a megabyte in one write (synchronous %s)', async (synchronous) => {
    // xterm.js decodes a write into a buffer as long as the longest write so far, never shrunk: 512 KiB a screen.
    // This reads its internals: after an upgrade that renames them, look again at what a screen keeps.
    mirror = new ScreenMirror({ cols: 80, rows: 24, synchronous });
    const line = `${'é'.repeat(39)}x\r\n`;
    const text = line.repeat(Math.ceil((1024 * 1024) / line.length));
    await mirror.write(new TextEncoder().encode(text));
    await mirror.write(text);
    const inputHandler = (mirror as unknown as { live: { terminal: { _core: { _inputHandler: { _parseBuffer: Uint32Array } } } } }).live.terminal._core._inputHandler;
    expect(inputHandler._parseBuffer.length).toBe(4096);
    // Characters cut between two pieces still come out whole.
    expect(mirror.screenText().split('\n').at(-2)).toBe(`${'é'.repeat(39)}x`);
  });

  it.each([true, false])('freezes: reads answer the same without the terminal, and a write brings it back as it was (synchronous %s)', async (synchronous) => {
    mirror = new ScreenMirror({ cols: 20, rows: 3, scrollback: 50, synchronous });
    await mirror.write(Array.from({ length: 80 }, (_, i) => `\x1b[3${i % 8}mline ${i}\x1b[0m`).join('\r\n'));
    const before = { snapshot: mirror.serialize({ scrollback: 50 }), text: mirror.screenText(), cursor: mirror.cursorPosition(), alt: mirror.isAltScreen };
    mirror.freeze();
    expect(mirror.isFrozen).toBe(true);
    expect((await mirror.snapshot(50)).screen).toBe(before.snapshot);
    expect(await mirror.text()).toEqual({ text: before.text, altScreen: before.alt });
    expect(mirror.cursorPosition()).toEqual(before.cursor);
    expect(mirror.isFrozen).toBe(true);

    await mirror.write('!\r\nnext');
    expect(mirror.isFrozen).toBe(false);
    expect(mirror.screenText()).toBe('line 78\nline 79!\nnext');
    expect(mirror.serialize({ scrollback: 50 })).toContain('line 30');
  });
});

