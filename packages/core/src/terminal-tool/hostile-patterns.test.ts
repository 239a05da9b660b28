import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPtyService } from '../pty/pty-service.js';
import { waitForOutput } from '../testing/session-waits.js';
import type { PtyService } from '../pty/types.js';
import { isolatedHome } from '../testing/isolated-env.js';
import { createTerminalTool, type TerminalTool } from './terminal-tool.js';

/**
 * A terminal_wait pattern that backtracks exponentially on the terminal's
 * output must not freeze the core: the wait ends with a clear error and every
 * other session keeps working. Without the bound this test never finishes.
 */
let service: PtyService;
let tool: TerminalTool;

beforeEach(() => {
  service = createPtyService({ env: { ...process.env, HOME: isolatedHome() }, killGraceMs: 500 });
  tool = createTerminalTool(service);
});
afterEach(async () => {
  tool.dispose();
  await service.dispose();
});

describe('hostile wait patterns', () => {
  it('a catastrophically backtracking pattern ends the wait with an error naming it, and the core keeps serving', async () => {
    const owner = { id: 'agent', name: 'agent' };
    // The terminal echoes what is typed; sleep never reads it, so it is never waiting for input either.
    const target = await tool.create(owner, { command: 'sleep', args: ['1000'] });
    const other = service.create({ source: 'user', command: 'cat' });
    const waiting = tool.wait(owner, { id: target.id, until: 'pattern', pattern: '(a+)+$', timeout_ms: 60_000 });
    // Output the pattern cannot match, and backtracks over 2^40 ways before saying so.
    service.write(target.id, `${'a'.repeat(40)}!\r`);
    await expect(waiting).rejects.toMatchObject({ code: 'invalid_input', message: expect.stringContaining('(a+)+$') });

    service.write(other.id, 'still-here\r');
    await waitForOutput(service, other.id, 'still-here\r\nstill-here');
    // An ordinary pattern still matches.
    const ok = tool.wait(owner, { id: target.id, until: 'pattern', pattern: 'ready (\\d+)', timeout_ms: 20_000 });
    service.write(target.id, 'ready 42\r');
    expect(await ok).toMatchObject({ reason: 'pattern', match: 'ready 42' });
  });
});
