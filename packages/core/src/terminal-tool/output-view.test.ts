import { describe, expect, it } from 'vitest';
import type { PtyService } from '../pty/types.js';
import { OutputView } from './output-view.js';

/** A log of fixed bytes, read as the service reads a session's log (absolute cursors from 0). */
function viewOf(bytes: string): OutputView {
  const log = Buffer.from(bytes, 'utf8');
  const service = {
    read: (_id: string, { cursor, maxBytes }: { cursor: number; maxBytes: number }) => ({
      cursor,
      data: log.subarray(cursor, cursor + maxBytes),
      skipped: 0,
    }),
  } as unknown as PtyService;
  return new OutputView(service, 'session', { chromeWithin: () => [] });
}

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
