import { describe, expect, it } from 'vitest';
import { PtyError } from '../pty/types.js';
import { TerminalToolError } from './errors.js';
import type { TerminalOwner } from './terminal-tool.js';
import { collectGarbage } from '../testing/leak-meters.js';
import { useRealShells } from '../testing/real-shells.js';

/** Input for a program that does not read it is bounded: a flood is refused, not held in memory. */

const owner: TerminalOwner = { id: 'flooder' };
const shells = useRealShells('backlog', owner);

describe('input backlog', () => {
  it('refuses 1 MiB sends past a few MiB of unread input, keeps memory bounded, and frees it on close', async () => {
    const sleeper = await shells.tool.run(owner, { command: 'sleep 1000', timeout_ms: 0 });
    const chunk = 'x'.repeat(1024 * 1024);
    collectGarbage();
    const before = process.memoryUsage().arrayBuffers;
    let accepted = 0;
    const refusals: TerminalToolError[] = [];
    for (let i = 0; i < 40; i++) {
      const result = await shells.tool.send(owner, { id: sleeper.id, text: chunk, wait_ms: 0 }).catch((error: unknown) => error);
      if (result instanceof TerminalToolError) refusals.push(result);
      else accepted++;
    }
    // The terminal's own buffer takes a few KiB; the rest waits here, up to 4 MiB.
    expect(accepted).toBeLessThanOrEqual(5);
    expect(refusals).toHaveLength(40 - accepted);
    expect(refusals[0]?.code).toBe('input_backlog');
    expect(refusals[0]?.message).toMatch(/not reading its input/);
    // What is held, not what is garbage yet: each refused 1 MiB send made a buffer that only a GC frees
    // (global.gc is absent without --expose-gc, and one run counted 27 MiB of such garbage).
    collectGarbage();
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(16 * 1024 * 1024);
    // A refused write queued nothing; the session still works and closes cleanly.
    const closed = await shells.tool.close(owner, { id: sleeper.id });
    expect(closed.process_signal).toBe('SIGHUP');
  });

  it('says so to a panel writer as a PtyError', () => {
    const info = shells.service.create({ command: 'sleep', args: ['1000'], source: 'user' });
    const chunk = Buffer.alloc(1024 * 1024, 0x61);
    const errors: unknown[] = [];
    for (let i = 0; i < 8; i++) {
      try {
        shells.service.write(info.id, chunk);
      } catch (error) {
        errors.push(error);
      }
    }
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]).toBeInstanceOf(PtyError);
    expect((errors[0] as PtyError).code).toBe('input_backlog');
    return shells.service.remove(info.id);
  });
});
