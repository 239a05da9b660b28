import { describe, expect, it } from 'vitest';
import { holdsSocket, readStat, readStatTable, sameTurnStatTable, socketInodes } from './proc-fs.js';

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

describe.runIf(process.platform === 'linux')('holdsSocket', () => {
  it('says whether the process holds the socket, by its descriptors', async () => {
    const { createServer, connect } = await import('node:net');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const client = connect(port, '127.0.0.1');
    try {
      await new Promise<void>((resolve, reject) => client.once('connect', resolve).once('error', reject));
      const held = socketInodes(process.pid);
      expect(held.length).toBeGreaterThan(0);
      for (const inode of held) expect(holdsSocket(process.pid, inode)).toBe(true);
      expect(holdsSocket(process.pid, '0')).toBe(false);
      expect(holdsSocket(1 << 30, held[0]!)).toBe(false);
    } finally {
      client.destroy();
      server.close();
    }
  });
});
