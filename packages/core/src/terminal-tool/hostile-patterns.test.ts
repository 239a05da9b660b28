import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPtyService } from '../pty/pty-service.js';
import { waitForOutput } from '../testing/session-waits.js';
import type { PtyService } from '../pty/types.js';
import { isolatedHome } from '../testing/isolated-env.js';
import { PATTERN_STRIKES } from './agent-patterns.js';
import { createTerminalTool, type TerminalTool } from './terminal-tool.js';

/**
 * A terminal_wait pattern that backtracks exponentially on the terminal's
 * output must not freeze the core: the wait ends with a clear error and every
 * other session keeps working, also while the pattern is being tried. Without
 * the bound the first test never finishes; with a bound on the loop (a match
 * interrupted after its budget) the second sees every wait end before the
 * developer's keystroke is echoed.
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

  it('eight parallel waits on such a pattern leave the developer typing, and the agent is refused after its third', async () => {
    const owner = { id: 'agent', name: 'agent' };
    const target = await tool.create(owner, { command: 'sleep', args: ['1000'] });
    const developer = service.create({ source: 'user', command: 'cat' });
    let settled = 0;
    const waits = Array.from({ length: 8 }, () => {
      const waiting = tool.wait(owner, { id: target.id, until: 'pattern', pattern: '^(a+)+$', timeout_ms: 60_000 });
      void waiting.then(
        () => settled++,
        () => settled++,
      );
      return waiting;
    });
    // Once the line the pattern backtracks over is out, the developer types into their own tab.
    const echoed = new Promise<number>((resolve) => {
      const off = service.on('pty.data', (event) => {
        if (event.id !== target.id || !Buffer.from(event.data).toString().includes('b')) return;
        off();
        service.write(developer.id, 'still-here\r');
        void waitForOutput(service, developer.id, 'still-here\r\nstill-here').then(() => resolve(settled));
      });
    });
    service.write(target.id, `${'a'.repeat(30)}b\r`);
    // The echo comes back while the waits are still matching: none of them held the loop.
    expect(await echoed).toBeLessThan(8);

    const outcomes = await Promise.allSettled(waits);
    const messages = outcomes.map((outcome) => (outcome.status === 'rejected' ? String((outcome.reason as Error).message) : 'resolved'));
    expect(messages.slice(0, PATTERN_STRIKES)).toEqual(Array(PATTERN_STRIKES).fill(expect.stringContaining('took more than 500 ms')));
    // After the third, the rest are stopped and refused rather than each holding the matching thread in turn.
    expect(messages.slice(PATTERN_STRIKES)).toEqual(Array(8 - PATTERN_STRIKES).fill(expect.stringContaining('matches no pattern of yours')));
    await expect(tool.wait(owner, { id: target.id, until: 'pattern', pattern: 'ready', timeout_ms: 1000 })).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringContaining('until "exit", "idle" or "port"'),
    });

    // Another agent's patterns still match, in a new matching thread.
    const other = { id: 'other-agent', name: 'other' };
    const its = await tool.create(other, { command: 'sleep', args: ['1000'] });
    const ok = tool.wait(other, { id: its.id, until: 'pattern', pattern: 'ready (\\d+)', timeout_ms: 20_000 });
    service.write(its.id, 'ready 42\r');
    expect(await ok).toMatchObject({ reason: 'pattern', match: 'ready 42' });
  });
});
