import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { socketInodes } from '../proc/proc-fs.js';
import { until } from '../testing/poll-until.js';
import { checkHostProcess } from './host-check.js';

// The kernel's word on who listens, with real sockets and processes: this test process plays the host.
const servers: Server[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  for (const server of servers.splice(0)) server.close();
});

async function listen(): Promise<{ server: Server; port: number; fd: number }> {
  const server = createServer();
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const fd = (server as unknown as { _handle: { fd: number } })._handle.fd;
  return { server, port: (server.address() as { port: number }).port, fd };
}

/** A process that holds a copy of the listening socket, as a child does between fork and exec. */
async function holderOf(fd: number, detached: boolean): Promise<number> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: ['ignore', 'ignore', 'ignore', fd], detached });
  children.push(child);
  const inode = socketInodes(process.pid).find((candidate) => socketInodes(child.pid!).includes(candidate));
  await until(() => inode !== undefined || socketInodes(child.pid!).length > 0, 'the child holds the socket');
  return child.pid!;
}

describe('who listens on the port server.json names', () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'ptydeck-host-check-'));

  it('is the host, also while a child of its holds a copy of its socket', async () => {
    const { port, fd } = await listen();
    const record = { url: `http://127.0.0.1:${port}`, pid: process.pid };
    expect(checkHostProcess(record, stateDir)).toMatchObject({ kind: 'trusted', pid: process.pid });
    await holderOf(fd, false);
    expect(checkHostProcess(record, stateDir)).toMatchObject({ kind: 'trusted', pid: process.pid });
  });

  it('refuses when a process that is no child of the one server.json names holds its socket too', async () => {
    const { port, fd } = await listen();
    const stranger = await holderOf(fd, true);
    // Detached, but still this process's child until it is reparented: a grandchild of init is what an escapee is.
    const record = { url: `http://127.0.0.1:${port}`, pid: stranger };
    expect(checkHostProcess(record, stateDir)).toMatchObject({ kind: 'refused' });
  });

  it('refuses a record naming a process that does not hold the socket', async () => {
    const { port } = await listen();
    const record = { url: `http://127.0.0.1:${port}`, pid: 1 };
    expect(checkHostProcess(record, stateDir)).toMatchObject({ kind: 'refused', reason: expect.stringMatching(/process 1/) });
  });
});
