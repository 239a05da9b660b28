import { once } from 'node:events';
import { closeSync, openSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { describe, expect, it } from 'vitest';
import { isLive, procPids, readStat, type ProcStat } from '../proc/proc-fs.js';
import { listeningSockets } from '../proc/tcp-table.js';
import { ProcessFacts } from './process-facts.js';

/** Every live process's stat line, by pid, as a scan's table has them. */
function statTable(): Map<number, ProcStat> {
  const stats = new Map<number, ProcStat>();
  for (const pid of procPids()) {
    const stat = readStat(pid);
    if (stat && isLive(stat)) stats.set(pid, stat);
  }
  return stats;
}

/** A server of this process listening on loopback, and its socket's inode as the TCP tables name it. */
async function listeningHere(): Promise<{ server: Server; inode: string }> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const inode = [...listeningSockets()!].find(([, socket]) => socket.port === port)![0];
  return { server, inode };
}

describe.runIf(process.platform === 'linux')('ProcessFacts', () => {
  it('reads a command line again that was empty (a read between exec naming the program and setting its arguments)', () => {
    const facts = new ProcessFacts();
    const stat = readStat(process.pid)!;
    const reads = ['', 'python3 -m http.server 0'];
    const read = () => reads.shift() ?? 'read too often';
    expect(facts.command(process.pid, stat, read)).toBe('');
    expect(facts.command(process.pid, stat, read)).toBe('python3 -m http.server 0');
    // Once known, it is kept for as long as the program runs.
    expect(facts.command(process.pid, stat, read)).toBe('python3 -m http.server 0');
  });

  it("takes a process's stat line from a table read in the same turn, as a fresh read", () => {
    const facts = new ProcessFacts();
    const stat = readStat(process.pid)!;
    const read = { ...stat, name: 'from-the-table' };
    expect(facts.stat(process.pid, true, Date.now(), new Map([[process.pid, read]]))).toBe(read);
    // Gone from the table: gone.
    expect(facts.stat(process.pid, true, Date.now(), new Map())).toBeUndefined();
  });

  it('reads an empty environment again while the program is new (an exec caught before its environment is set), and an unlabelled one once', () => {
    const facts = new ProcessFacts();
    const stat = readStat(process.pid)!;
    const reads: Array<{ id: string } | null | undefined> = [null, { id: 'session-1' }];
    const read = () => reads.shift() as never;
    expect(facts.label(process.pid, stat, read)).toBeUndefined();
    expect(facts.label(process.pid, stat, read)).toEqual({ id: 'session-1' });
    const other = { ...stat, name: 'other-program' };
    let unlabelled = 0;
    const none = () => {
      unlabelled++;
      return undefined;
    };
    facts.label(process.pid, other, none);
    facts.label(process.pid, other, none);
    expect(unlabelled).toBe(1);
  });

  it('walks the descriptors for a socket it does not know a turn at a time, after which holders() knows its holder', async () => {
    const { server, inode } = await listeningHere();
    try {
      const stats = statTable();
      const facts = new ProcessFacts();
      // No time to spare: a turn before each process walked. The walk goes newest first, and stops at this one.
      const newer = [...stats.values()].filter((stat) => stat.startTicks > stats.get(process.pid)!.startTicks).length;
      let turns = 0;
      await facts.learnHolders(new Set([inode]), stats, async () => void turns++, 0);
      expect(turns).toBeGreaterThan(newer);
      expect(facts.holders(new Set([inode]), stats).get(inode)).toBe(process.pid);
    } finally {
      server.close();
    }
  });

  it('finds the holder of a socket it found no holder for once a process newer than its walk holds it (a server started after the table was read)', async () => {
    const { server, inode } = await listeningHere();
    try {
      const stats = statTable();
      // A scan's table read before this process started: the socket, read after it, has no holder there.
      const mine = stats.get(process.pid)!.startTicks;
      const before = new Map([...stats].filter(([, stat]) => stat.startTicks < mine));
      const facts = new ProcessFacts();
      await facts.learnHolders(new Set([inode]), before, async () => {}, 0);
      expect(facts.holders(new Set([inode]), before).get(inode)).toBeUndefined();
      // The next scan's table has it: a port wait that hid the socket for good waited out its timeout.
      expect(facts.holders(new Set([inode]), stats).get(inode)).toBe(process.pid);
    } finally {
      server.close();
    }
  });

  it("pauses within one process's descriptors, not only between processes: a program may hold tens of thousands", async () => {
    const { server, inode } = await listeningHere();
    const held = Array.from({ length: 3000 }, () => openSync('/dev/null', 'r'));
    try {
      // This process alone, its 3000 more descriptors walked with no time to spare: a turn at least every 256 of them.
      const stats = new Map([[process.pid, readStat(process.pid)!]]);
      const facts = new ProcessFacts();
      let turns = 0;
      await facts.learnHolders(new Set([inode]), stats, async () => void turns++, 0);
      expect(turns).toBeGreaterThanOrEqual(Math.floor(3000 / 256));
      expect(facts.holders(new Set([inode]), stats).get(inode)).toBe(process.pid);
    } finally {
      for (const fd of held) closeSync(fd);
      server.close();
    }
  });
});
