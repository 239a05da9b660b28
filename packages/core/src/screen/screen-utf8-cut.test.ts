import type { SessionInfo } from '@ptydeck/contract';
import { afterAll, describe, expect, it } from 'vitest';
import { OutputLog } from '../pty/output-log.js';
import type { PtyService, ReadOptions, ReadResult } from '../pty/types.js';
import { loadXterm, ScreenMirror } from './screen-mirror.js';
import { ScreenService } from './screen-service.js';

/**
 * A viewer resynced while a PTY read has delivered only part of a character:
 * the snapshot's cursor must not fall inside it, or the viewer, writing the
 * screen and then the bytes after the cursor, starts mid-character and
 * xterm.js drops the character without a trace (seen as `ünïcödé-本語-466`).
 */

const COLS = 40;
const ROWS = 6;
const encoder = new TextEncoder();

/** Just enough of a PTY service for screens: one log per session, fed by the test in the pieces it chooses. */
class ChunkedService {
  private readonly logs = new Map<string, OutputLog>();
  private next = 0;

  /** A session whose log holds `data`, as if a PTY read had ended there. */
  session(data: Uint8Array): string {
    const id = `cut-${++this.next}`;
    const log = new OutputLog();
    log.append(data);
    this.logs.set(id, log);
    return id;
  }

  /** The rest of the output arrives. */
  append(id: string, data: Uint8Array): void {
    this.logs.get(id)!.append(data);
  }

  get(id: string): SessionInfo | undefined {
    return this.logs.has(id) ? ({ id, cols: COLS, rows: ROWS, status: 'running' } as SessionInfo) : undefined;
  }

  list(): SessionInfo[] {
    return [];
  }

  read(id: string, options: ReadOptions = {}): ReadResult {
    const log = this.logs.get(id)!;
    return { ...log.readFrom(options.cursor, options.maxBytes), end: log.end, status: 'running', exitCode: null, signal: null };
  }

  on(): () => void {
    return () => {};
  }
}

/** What a viewer shows after a resync: the screen written into a reset terminal, then the log from the resync's cursor. */
async function viewerAfterResync(screen: string, rest: Uint8Array): Promise<string[]> {
  const { Terminal } = loadXterm();
  const terminal = new Terminal({ cols: COLS, rows: ROWS, scrollback: 1000, allowProposedApi: true });
  try {
    await new Promise<void>((resolve) => terminal.write(screen, resolve));
    await new Promise<void>((resolve) => terminal.write(rest, resolve));
    const buffer = terminal.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < buffer.length; y++) lines.push(buffer.getLine(y)?.translateToString(true) ?? '');
    return lines;
  } finally {
    terminal.dispose();
  }
}

// Wide characters mid-line and at a line's start, two- and four-byte ones: every kind of cut.
const LINES = ['ünïcödé-日本語-465', '日本語 at the start', 'smile 🙂 twice 🙂', 'ünïcödé-日本語-466'];
const OUTPUT = encoder.encode(LINES.map((line) => `${line}\r\n`).join(''));

const service = new ChunkedService();
const inThread = new ScreenService(service as unknown as PtyService, { createScreen: (options) => new ScreenMirror(options) });
const inWorker = new ScreenService(service as unknown as PtyService);

afterAll(() => {
  inThread.dispose();
  inWorker.dispose();
});

describe.each([
  ['in this thread', inThread],
  ['in the screen worker', inWorker],
])('a resync while a character is half read (%s)', (_name, screens) => {
  it('hands the viewer every character whole, wherever the log ends', async () => {
    for (let cut = 1; cut < OUTPUT.length; cut++) {
      const id = service.session(OUTPUT.subarray(0, cut));
      const snapshot = await screens.snapshot(id);
      const shown = await viewerAfterResync(snapshot.screen, OUTPUT.subarray(snapshot.cursor));
      expect({ cut, lines: shown.filter((line) => line !== '') }).toEqual({ cut, lines: LINES });
      // The screen itself goes on with the character, once the rest arrives.
      service.append(id, OUTPUT.slice(cut));
      const later = await screens.snapshot(id);
      expect(later.cursor).toBe(OUTPUT.length);
      const again = await viewerAfterResync(later.screen, new Uint8Array(0));
      expect({ cut, lines: again.filter((line) => line !== '') }).toEqual({ cut, lines: LINES });
    }
  });
});
