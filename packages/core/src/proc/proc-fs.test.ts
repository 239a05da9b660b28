import { describe, expect, it } from 'vitest';
import { readStat, readStatTable, sameTurnStatTable } from './proc-fs.js';

describe.runIf(process.platform === 'linux')('readStatTable', () => {
  it('reads every process, this one among them, and is offered again until the turn ends', async () => {
    const table = readStatTable();
    expect(table.pids).toContain(process.pid);
    expect(table.stats.get(process.pid)).toEqual(readStat(process.pid));
    expect(sameTurnStatTable()).toBe(table);
    await Promise.resolve();
    // A later turn reads for itself: a session may have started since.
    expect(sameTurnStatTable()).toBeUndefined();
  });
});
