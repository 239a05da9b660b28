import { readFile } from 'node:fs';
import { expect, it } from 'vitest';
import { nextLoopTurn } from './loop-turn.js';

/**
 * Checked by order, not by time: from an I/O callback, an immediate that an immediate queued before it
 * queues in its turn runs in the loop's next round, which one `setImmediate` would not wait for.
 */
it('resolves only once the loop has gone round, also when called from an I/O callback', async () => {
  const order = await new Promise<string[]>((resolve) => {
    readFile(import.meta.filename ?? new URL(import.meta.url).pathname, () => {
      const seen: string[] = [];
      setImmediate(() => setImmediate(() => seen.push('next round')));
      void nextLoopTurn().then(() => {
        seen.push('resolved');
        resolve(seen);
      });
    });
  });
  expect(order).toEqual(['next round', 'resolved']);
});
