import { describe, expect, it } from 'vitest';
import { advertisedDepth, detectCapability, detectColor, ptySessionCapability, type ColorDepth, type EnvLike, type TerminalKind } from './terminal-capability.js';
import { fileTempDir } from '../testing/isolated-env.js';

const TTY = { isTTY: true, columns: 120, rows: 40 };
const PIPE = { isTTY: false };

describe('detectColor precedence', () => {
  // [description, kind, env, expected]
  const table: [string, TerminalKind, EnvLike, ColorDepth][] = [
    // 1. FORCE_COLOR decides outright, over everything below it.
    ['FORCE_COLOR=0 on a truecolor tty', 'tty', { FORCE_COLOR: '0', COLORTERM: 'truecolor' }, 'none'],
    ['FORCE_COLOR=false', 'tty', { FORCE_COLOR: 'false', TERM: 'xterm' }, 'none'],
    ['FORCE_COLOR empty on a pipe', 'pipe', { FORCE_COLOR: '' }, 'basic'],
    ['FORCE_COLOR=1 on a pipe', 'pipe', { FORCE_COLOR: '1' }, 'basic'],
    ['FORCE_COLOR=true with no stream', 'none', { FORCE_COLOR: 'true' }, 'basic'],
    ['FORCE_COLOR=2', 'pipe', { FORCE_COLOR: '2' }, '256'],
    ['FORCE_COLOR=3', 'pipe', { FORCE_COLOR: '3' }, 'truecolor'],
    ['FORCE_COLOR=1 beats NO_COLOR', 'tty', { FORCE_COLOR: '1', NO_COLOR: '1' }, 'basic'],
    ['FORCE_COLOR=3 beats TERM=dumb', 'tty', { FORCE_COLOR: '3', TERM: 'dumb' }, 'truecolor'],
    ['FORCE_COLOR=0 beats CLICOLOR_FORCE', 'pipe', { FORCE_COLOR: '0', CLICOLOR_FORCE: '1', TERM: 'xterm' }, 'none'],
    ['FORCE_COLOR=2 beats a truecolor COLORTERM', 'tty', { FORCE_COLOR: '2', COLORTERM: 'truecolor' }, '256'],
    // 2. CLICOLOR_FORCE forces color on, even for a pipe, at the advertised depth.
    ['CLICOLOR_FORCE on a pipe with TERM=xterm', 'pipe', { CLICOLOR_FORCE: '1', TERM: 'xterm' }, 'basic'],
    ['CLICOLOR_FORCE on a pipe with a 256color TERM', 'pipe', { CLICOLOR_FORCE: '1', TERM: 'xterm-256color' }, '256'],
    ['CLICOLOR_FORCE on a pipe with COLORTERM=truecolor', 'pipe', { CLICOLOR_FORCE: '1', TERM: 'xterm', COLORTERM: 'truecolor' }, 'truecolor'],
    ['CLICOLOR_FORCE with nothing advertised is basic', 'pipe', { CLICOLOR_FORCE: '1' }, 'basic'],
    ['CLICOLOR_FORCE beats NO_COLOR', 'pipe', { CLICOLOR_FORCE: '1', NO_COLOR: '1', TERM: 'xterm-256color' }, '256'],
    ['CLICOLOR_FORCE beats CLICOLOR=0', 'pipe', { CLICOLOR_FORCE: '1', CLICOLOR: '0', TERM: 'xterm' }, 'basic'],
    ['CLICOLOR_FORCE beats TERM=dumb', 'pipe', { CLICOLOR_FORCE: '1', TERM: 'dumb' }, 'basic'],
    ['CLICOLOR_FORCE=0 does not force', 'pipe', { CLICOLOR_FORCE: '0', TERM: 'xterm' }, 'none'],
    ['CLICOLOR_FORCE empty does not force', 'pipe', { CLICOLOR_FORCE: '', TERM: 'xterm' }, 'none'],
    // 3. NO_COLOR (non-empty) and CLICOLOR=0 force it off.
    ['NO_COLOR on a truecolor tty', 'tty', { NO_COLOR: '1', COLORTERM: 'truecolor' }, 'none'],
    ['NO_COLOR empty is ignored', 'tty', { NO_COLOR: '', TERM: 'xterm-256color' }, '256'],
    ['CLICOLOR=0 on a tty', 'tty', { CLICOLOR: '0', TERM: 'xterm-256color' }, 'none'],
    ['CLICOLOR=1 on a pipe does not force', 'pipe', { CLICOLOR: '1', TERM: 'xterm' }, 'none'],
    ['NO_COLOR beats TERM=dumb too (both none)', 'tty', { NO_COLOR: 'x', TERM: 'dumb' }, 'none'],
    // 4. TERM=dumb is none, even with COLORTERM.
    ['TERM=dumb on a tty', 'tty', { TERM: 'dumb' }, 'none'],
    ['TERM=dumb with COLORTERM=truecolor', 'tty', { TERM: 'dumb', COLORTERM: 'truecolor' }, 'none'],
    // 5. A tty at its advertised depth; a pipe none.
    ['tty with TERM=xterm', 'tty', { TERM: 'xterm' }, 'basic'],
    ['tty with TERM=xterm-256color', 'tty', { TERM: 'xterm-256color' }, '256'],
    ['tty with TERM=screen-256color', 'tty', { TERM: 'screen-256color' }, '256'],
    ['tty with COLORTERM=truecolor', 'tty', { TERM: 'xterm-256color', COLORTERM: 'truecolor' }, 'truecolor'],
    ['tty with COLORTERM=24bit', 'tty', { TERM: 'xterm', COLORTERM: '24bit' }, 'truecolor'],
    ['tty with TERM=xterm-direct', 'tty', { TERM: 'xterm-direct' }, 'truecolor'],
    ['tty with no TERM advertises nothing', 'tty', {}, 'none'],
    ['pipe with a truecolor terminal env', 'pipe', { TERM: 'xterm-256color', COLORTERM: 'truecolor' }, 'none'],
    ['no stream with a truecolor terminal env', 'none', { TERM: 'xterm-256color', COLORTERM: 'truecolor' }, 'none'],
  ];
  it.each(table)('%s', (_description, kind, env, expected) => {
    expect(detectColor(kind, env)).toBe(expected);
  });

  it('reads the advertised depth from COLORTERM before TERM', () => {
    expect(advertisedDepth({ COLORTERM: 'TrueColor', TERM: 'vt100' })).toBe('truecolor');
    expect(advertisedDepth({ COLORTERM: 'yes', TERM: 'vt100' })).toBe('basic');
  });
});

describe('detectCapability', () => {
  it('describes a tty with its size', () => {
    expect(detectCapability(TTY, { TERM: 'xterm-256color' })).toEqual({ kind: 'tty', color: '256', columns: 120, rows: 40, sharedStdoutStderr: false });
  });

  it('describes a pipe and a missing stream without a size', () => {
    expect(detectCapability(PIPE, { TERM: 'xterm-256color' })).toEqual({ kind: 'pipe', color: 'none', columns: null, rows: null, sharedStdoutStderr: false });
    expect(detectCapability(null, {})).toEqual({ kind: 'none', color: 'none', columns: null, rows: null, sharedStdoutStderr: false });
  });

  it('lets COLUMNS and LINES override the size, for a tty or a pipe, ignoring malformed values', () => {
    expect(detectCapability(TTY, { COLUMNS: '200', LINES: '60' })).toMatchObject({ columns: 200, rows: 60 });
    expect(detectCapability(PIPE, { COLUMNS: '100' })).toMatchObject({ columns: 100, rows: null });
    expect(detectCapability(TTY, { COLUMNS: 'wide', LINES: '0' })).toMatchObject({ columns: 120, rows: 40 });
    expect(detectCapability(TTY, { COLUMNS: '-5', LINES: '12.5' })).toMatchObject({ columns: 120, rows: 40 });
  });

  it('says whether stdout and stderr share one target', () => {
    const pairs: [number, number][] = [];
    const sameTarget = (a: number, b: number) => {
      pairs.push([a, b]);
      return true;
    };
    expect(detectCapability({ ...PIPE, fd: 1 }, {}, { sameTarget }).sharedStdoutStderr).toBe(true);
    expect(pairs).toEqual([[1, 2]]);
    expect(detectCapability({ ...PIPE, fd: 1 }, {}, { sameTarget: () => false }).sharedStdoutStderr).toBe(false);
    expect(detectCapability({ ...PIPE, fd: 5 }, {}, { stderr: { fd: 6 }, sameTarget }).sharedStdoutStderr).toBe(true);
    expect(detectCapability({ ...PIPE, fd: 5 }, {}, { stderr: null, sameTarget }).sharedStdoutStderr).toBe(false);
    expect(detectCapability(PIPE, {}, { sameTarget }).sharedStdoutStderr).toBe(false);
  });

  it('compares real descriptors with fstat', async () => {
    const { openSync, closeSync, mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const file = path.join(fileTempDir('ptydeck-cap-'), 'out');
    const a = openSync(file, 'w');
    const b = openSync(file, 'a');
    const other = openSync('/dev/null', 'w');
    try {
      expect(detectCapability({ isTTY: false, fd: a }, {}, { stderr: { fd: b } }).sharedStdoutStderr).toBe(true);
      expect(detectCapability({ isTTY: false, fd: a }, {}, { stderr: { fd: other } }).sharedStdoutStderr).toBe(false);
    } finally {
      for (const fd of [a, b, other]) closeSync(fd);
    }
  });
});

describe('ptySessionCapability', () => {
  it('is a truecolor tty of the session size, with shared stdout and stderr', () => {
    expect(ptySessionCapability({ cols: 100, rows: 30 }, {}, { TERM: 'dumb', COLUMNS: '50' })).toEqual({
      kind: 'tty',
      color: 'truecolor',
      columns: 100,
      rows: 30,
      sharedStdoutStderr: true,
    });
  });

  it("honours color and size variables from the caller's and the inherited environment", () => {
    expect(ptySessionCapability({ cols: 80, rows: 24 }, { NO_COLOR: '1' }, {}).color).toBe('none');
    expect(ptySessionCapability({ cols: 80, rows: 24 }, {}, { FORCE_COLOR: '2' }).color).toBe('256');
    expect(ptySessionCapability({ cols: 80, rows: 24 }, { COLUMNS: '132' }, {})).toMatchObject({ columns: 132, rows: 24 });
  });
});
