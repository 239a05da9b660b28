import { spawn } from 'node:child_process';
import { closeSync, openSync, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { childPids, readStat, readStatTable, sameTurnStatTable, StatHandles } from './proc-fs.js';
import { holdsSocket, holdsSockets, socketInodes } from './socket-descriptors.js';
import { listeningRows } from './tcp-table.js';
import { until } from '../testing/poll-until.js';

// The host check's question of the kernel: does this process hold these sockets?
const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A server listening here, and the inode of its socket. */
async function listening(): Promise<string> {
  const server: Server = createServer();
  cleanups.push(() => server.close());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const row = listeningRows()!.find((socket) => Number.parseInt(socket.local.split(':')[1]!, 16) === port);
  return row!.inode;
}

/** `count` more descriptors held by this process (a host with sessions holds hundreds). */
function moreDescriptors(count: number): void {
  const fds = Array.from({ length: count }, () => openSync('/dev/null', 'r'));
  cleanups.push(() => fds.forEach((fd) => closeSync(fd)));
}

describe.runIf(process.platform === 'linux')('holdsSockets', () => {
  it('says a process holds its listening sockets, with hundreds of descriptors around them', async () => {
    const first = await listening();
    moreDescriptors(150);
    const second = await listening();
    moreDescriptors(150);
    expect(holdsSockets(process.pid, new Set([first, second]))).toBe(true);
    expect(holdsSockets(process.pid, new Set([second]))).toBe(true);
    // Looked for newest first, among numbers of one to three digits.
    expect(holdsSocket(process.pid, first)).toBe(true);
    expect(holdsSocket(process.pid, second)).toBe(true);
  });

  it('says no when one socket is another process\'s', async () => {
    const ours = await listening();
    const child = spawn(process.execPath, ['-e', "require('node:net').createServer().listen(0, '127.0.0.1', () => console.log('up'))"], { stdio: ['ignore', 'pipe', 'inherit'] });
    cleanups.push(() => child.kill('SIGKILL'));
    await new Promise((resolve) => child.stdout!.once('data', resolve));
    const theirs = socketInodes(child.pid!).find((inode) => !socketInodes(process.pid).includes(inode))!;
    expect(theirs).toBeDefined();
    expect(holdsSockets(process.pid, new Set([ours, theirs]))).toBe(false);
    expect(holdsSockets(child.pid!, new Set([theirs]))).toBe(true);
  });

  it('says no for a process that is gone', async () => {
    const inode = await listening();
    const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    await new Promise((resolve) => child.once('exit', resolve));
    expect(holdsSockets(child.pid!, new Set([inode]))).toBe(false);
  });
});

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

describe.runIf(process.platform === 'linux')('StatHandles', () => {
  it('reads every line through descriptors it keeps, drops the descriptor of a process once it is gone, and closes the rest', async () => {
    const fdsAtStart = readdirSync('/proc/self/fd').length;
    const handles = new StatHandles();
    try {
      const child = spawn('sleep', ['30'], { stdio: 'ignore' });
      await new Promise((resolve) => child.once('spawn', resolve));
      // Asleep, so its line holds still between the reads compared below (just spawned, it may still be running).
      await until(() => readStat(child.pid!)?.state === 'S', 'sleep to be asleep');
      const first = readStatTable(handles);
      expect(first.stats.get(process.pid)).toEqual(readStat(process.pid));
      expect(first.stats.get(child.pid!)).toEqual(readStat(child.pid!));
      expect(handles.holds(process.pid) && handles.holds(child.pid!)).toBe(true);
      // Read again through the same descriptors: the lines are the processes' now, not cached text.
      expect(readStatTable(handles).stats.get(child.pid!)?.state).toBe(readStat(child.pid!)?.state);
      expect(handles.holds(child.pid!)).toBe(true);
      child.kill();
      await new Promise((resolve) => child.once('exit', resolve));
      // Other processes on the machine come and go meanwhile: only this one's descriptor is asked about.
      const after = readStatTable(handles);
      expect(after.stats.has(child.pid!)).toBe(false);
      expect(handles.holds(child.pid!)).toBe(false);
    } finally {
      handles.dispose();
    }
    expect(handles.size).toBe(0);
    expect(readdirSync('/proc/self/fd').length).toBe(fdsAtStart);
  });

  it("never answers a reaped process's line through the descriptor kept for it, even when its pid is listed again (as a reused pid is)", async () => {
    const handles = new StatHandles();
    try {
      const child = spawn('sleep', ['30'], { stdio: 'ignore' });
      await new Promise((resolve) => child.once('spawn', resolve));
      const pid = child.pid!;
      const first = new Map<number, ReturnType<typeof readStat> & object>();
      handles.readAll([pid], first);
      expect(first.get(pid)?.ppid).toBe(process.pid);
      child.kill();
      await new Promise((resolve) => child.once('exit', resolve));
      // The pid listed again before the next table: its kept descriptor reads nothing (ESRCH), and a fresh open
      // by path finds no such process, so no line is given for it, and no descriptor kept.
      const again = new Map<number, ReturnType<typeof readStat> & object>();
      handles.readAll([pid], again);
      expect(again.has(pid)).toBe(false);
      expect(handles.holds(pid)).toBe(false);
    } finally {
      handles.dispose();
    }
  });

  it('holds no more descriptors than its limit, and reads past it by path', () => {
    const handles = new StatHandles(3);
    try {
      const table = readStatTable(handles);
      expect(handles.size).toBe(3);
      expect(table.stats.get(process.pid)).toEqual(readStat(process.pid));
      expect(table.stats.size).toBeGreaterThan(3);
    } finally {
      handles.dispose();
    }
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

describe.runIf(process.platform === 'linux')('childPids', () => {
  it("lists a process's children, and nothing for one that is gone", async () => {
    // A process group of its own, ended whole: the sleeps with it, whether or not the test gets to name them.
    const parent = spawn('sh', ['-c', 'sleep 300 & sleep 300 & wait'], { stdio: 'ignore', detached: true });
    cleanups.push(() => process.kill(-parent.pid!, 'SIGKILL'));
    let children: number[] | undefined = [];
    while ((children?.length ?? 0) < 2) {
      await new Promise((resolve) => setImmediate(resolve));
      children = childPids(parent.pid!);
    }
    expect(children).toHaveLength(2);
    for (const pid of children!) expect(readStat(pid)).toMatchObject({ ppid: parent.pid });
    const gone = spawn('true');
    await new Promise((resolve) => gone.on('exit', resolve));
    expect(childPids(gone.pid!)).toBeUndefined();
  });
});
