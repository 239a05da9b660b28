import { describe, expect, it } from 'vitest';
import type { PtyService } from '../pty/types.js';
import { OutputView } from './output-view.js';

/** A log of fixed bytes, read as the service reads a session's log (absolute cursors from 0). */
function viewOf(bytes: string | Buffer): OutputView {
  const log = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes;
  const service = {
    // A copy, as the service's reads are.
    read: (_id: string, { cursor, maxBytes }: { cursor: number; maxBytes: number }) => ({
      cursor,
      data: Buffer.from(log.subarray(cursor, cursor + maxBytes)),
      skipped: 0,
    }),
  } as unknown as PtyService;
  return new OutputView(service, 'session', { chromeWithin: () => [] });
}

describe('OutputView.readInTurns', () => {
  // 4 MiB would do as well; 400 KiB of colored lines is past the 64 KiB rendered whole for 16 KiB.
  const line = (i: number) => `\x1b[1;38;5;${i % 256}m${String(i).padStart(6, '0')}\x1b[0m \x1b[4mcompiled\x1b[24m module_${i}.ts\r\n`;
  const colored = Array.from({ length: 8000 }, (_, i) => line(i)).join('');
  const maxBytes = 16 * 1024;

  it("renders a long range's head and tail windows each after a turn, into read()'s text", async () => {
    const view = viewOf(colored);
    const expected = view.read(0, colored.length, maxBytes);
    expect(expected.truncated).toBe(true);
    let turns = 0;
    const read = await view.readInTurns(0, colored.length, maxBytes, async () => {
      turns++;
    });
    expect(turns).toBe(2);
    expect(read).toEqual(expected);
    // A range rendered whole takes none.
    const short = await view.readInTurns(0, 4096, maxBytes, async () => {
      turns++;
    });
    expect(turns).toBe(2);
    expect(short).toEqual(view.read(0, 4096, maxBytes));
  });

  it('returns what the log and the echoes held when it was called, whatever changes during its turns', async () => {
    const log = Buffer.from(colored, 'utf8');
    const view = viewOf(log);
    const expected = view.read(0, log.length, maxBytes);
    const read = await view.readInTurns(0, log.length, maxBytes, async () => {
      log.fill(0x78);
      view.expectEcho(log.length - 100, 'x'.repeat(50));
    });
    expect(read).toEqual(expected);
  });
});

describe('OutputView.textBytes', () => {
  const colored = '\x1b[1;31mred\x1b[0m\n';

  it('counts the text a read returns, not the escape sequences around it', () => {
    const view = viewOf(colored);
    expect(view.textBytes(0, colored.length, 16 * 1024)).toBe(Buffer.byteLength(view.read(0, colored.length, 16 * 1024).text));
    expect(view.textBytes(0, colored.length, 16 * 1024)).toBe(4);
  });

  it('renders nothing past its render budget: it counts the raw bytes instead', () => {
    const view = viewOf(colored);
    expect(view.textBytes(0, colored.length, 16 * 1024, colored.length)).toBe(4);
    expect(view.textBytes(0, colored.length, 16 * 1024, colored.length - 1)).toBe(colored.length);
  });
});
