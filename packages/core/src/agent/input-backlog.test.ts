import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPtyService } from '../pty/pty-service.js';
import { PtyError, type PtyService } from '../pty/types.js';
import { TerminalToolError } from './errors.js';
import { createTerminalTool, type TerminalOwner, type TerminalTool } from './terminal-tool.js';

/** Input for a program that does not read it is bounded: a flood is refused, not held in memory. */

let service: PtyService;
let tool: TerminalTool;
let dir: string;
const owner: TerminalOwner = { id: 'flooder' };

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ptydeck-backlog-'));
  const home = join(dir, 'home');
  mkdirSync(home);
  service = createPtyService({ env: { ...process.env, HOME: home, HISTFILE: join(home, '.history') } });
  tool = createTerminalTool(service);
});

afterAll(async () => {
  await tool.closeOwner(owner.id);
  tool.dispose();
  await service.dispose();
  rmSync(dir, { recursive: true, force: true });
});

describe('input backlog', () => {
  it('refuses 1 MiB sends past a few MiB of unread input, keeps memory bounded, and frees it on close', async () => {
    const sleeper = await tool.run(owner, { command: 'sleep 1000', timeout_ms: 0 });
    const chunk = 'x'.repeat(1024 * 1024);
    global.gc?.();
    const before = process.memoryUsage().arrayBuffers;
    let accepted = 0;
    const refusals: TerminalToolError[] = [];
    for (let i = 0; i < 40; i++) {
      const result = await tool.send(owner, { id: sleeper.id, text: chunk, wait_ms: 0 }).catch((error: unknown) => error);
      if (result instanceof TerminalToolError) refusals.push(result);
      else accepted++;
    }
    // The terminal's own buffer takes a few KiB; the rest waits here, up to 4 MiB.
    expect(accepted).toBeLessThanOrEqual(5);
    expect(refusals).toHaveLength(40 - accepted);
    expect(refusals[0]?.code).toBe('input_backlog');
    expect(refusals[0]?.message).toMatch(/not reading its input/);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(16 * 1024 * 1024);
    // A refused write queued nothing; the session still works and closes cleanly.
    const closed = await tool.close(owner, { id: sleeper.id });
    expect(closed.process_signal).toBe('SIGHUP');
  });

  it('says so to a panel writer as a PtyError', () => {
    const info = service.create({ command: 'sleep', args: ['1000'], source: 'user' });
    const chunk = Buffer.alloc(1024 * 1024, 0x61);
    const errors: unknown[] = [];
    for (let i = 0; i < 8; i++) {
      try {
        service.write(info.id, chunk);
      } catch (error) {
        errors.push(error);
      }
    }
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]).toBeInstanceOf(PtyError);
    expect((errors[0] as PtyError).code).toBe('input_backlog');
    return service.remove(info.id);
  });
});
