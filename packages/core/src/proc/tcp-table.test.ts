import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { readdirSync, readlinkSync } from 'node:fs';
import { listeningRows, listeningRowsOffThread, scanTcpTable, TcpFingerprint, tcpFingerprint, type TcpSocket } from './tcp-table.js';

const open: Array<Server | Socket> = [];
afterEach(() => {
  for (const handle of open.splice(0)) {
    if ('destroy' in handle) handle.destroy();
    else handle.close();
  }
});

function listen(): Promise<number> {
  const server = createServer((socket) => open.push(socket));
  open.push(server);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
}

describe.runIf(process.platform === 'linux')('listeningRows', () => {
  it('finds every listening socket, however many reads they take, with connections open after them', async () => {
    // More listeners than one read of a few lines holds, and an established connection after them.
    const ports = await Promise.all(Array.from({ length: 40 }, listen));
    await new Promise<void>((resolve) => open.push(connect(ports[0]!, '127.0.0.1', resolve)));
    const found = new Set(listeningRows()!.map((socket) => Number.parseInt(socket.local.split(':')[1]!, 16)));
    for (const port of ports) expect(found).toContain(port);
    // Read on the thread pool, the same rows (nothing listens or stops listening in between).
    expect(await listeningRowsOffThread()).toEqual(listeningRows());
  });
});

describe.runIf(process.platform === 'linux')('listeningRows over IPv6', () => {
  it('finds a socket listening on the IPv6 loopback, which the kernel counts in sockstat6', async (context) => {
    const server = createServer();
    open.push(server);
    const port = await new Promise<number | undefined>((resolve) => {
      server.once('error', () => resolve(undefined));
      server.listen(0, '::1', () => resolve((server.address() as { port: number }).port));
    });
    if (port === undefined) return context.skip('no IPv6 loopback here');
    const rows = listeningRows()!;
    expect(rows.every((socket) => socket.state === '0A')).toBe(true);
    expect(rows.map((socket) => socket.local)).toContain(`00000000000000000000000001000000:${port.toString(16).toUpperCase().padStart(4, '0')}`);
  });
});

/** `count` connections to a fresh listener, each once its client end is connected. */
async function clients(count: number): Promise<Socket[]> {
  const port = await listen();
  return Promise.all(
    Array.from({ length: count }, () => new Promise<Socket>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => resolve(socket));
      open.push(socket);
    })),
  );
}

/** A client's end as /proc/net/tcp writes it (127.0.0.1 in host byte order, the port in hex). */
function clientEnd(client: Socket): string {
  return `0100007F:${client.localPort!.toString(16).toUpperCase().padStart(4, '0')}`;
}

describe.runIf(process.platform === 'linux')('scanTcpTable', () => {
  it('finds each of many connections, however many reads before it, and stops at the one it wanted', async () => {
    for (const client of await clients(40)) {
      const local = clientEnd(client);
      const visited: string[] = [];
      expect(scanTcpTable('/proc/net/tcp', (socket) => (visited.push(socket.local), socket.local === local))).toBe(true);
      expect(visited.filter((seen) => seen === local)).toHaveLength(1);
      expect(visited.at(-1)).toBe(local);
    }
  });

  it('passes over, unparsed, the rows mayMatch says no to, and still finds the one it wanted', async () => {
    for (const client of await clients(10)) {
      const local = clientEnd(client);
      const visited: TcpSocket[] = [];
      expect(scanTcpTable('/proc/net/tcp', (socket) => (visited.push(socket), socket.local === local), (row) => row.includes(`${local} `))).toBe(true);
      // The client's row, and at most the server's end of the same connection (whose remote end it is) before it;
      // rows no descriptor holds (TIME_WAIT, inode 0) may be an earlier connection's that used the same port, which
      // other test files' connections make possible (a run of five folders failed here once; its message was lost).
      expect(visited.at(-1)!.local).toBe(local);
      const live = visited.filter((socket) => socket.inode !== '0');
      expect(live.length).toBeLessThanOrEqual(2);
      for (const socket of visited) expect([socket.local, socket.remote]).toContain(local);
    }
  });

  it('says when a table cannot be read', () => {
    expect(scanTcpTable('/proc/net/no-such-table', () => false)).toBe(false);
  });
});

/** This process's descriptors open on a sockstat file. */
function sockstatFds(): string[] {
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).includes('sockstat');
    } catch {
      return false;
    }
  });
}

describe.runIf(process.platform === 'linux')('TcpFingerprint', () => {
  it('reads the count afresh through the descriptors it keeps, as tcpFingerprint does by path, and closes them when disposed', async () => {
    const atStart = sockstatFds();
    const held = new TcpFingerprint();
    try {
      const before = held.read();
      expect(before).toMatch(/^\d+\/\d*$/);
      expect(sockstatFds().length).toBeGreaterThan(atStart.length);
      // A listener and a connection to it: three sockets more, seen through the same descriptors.
      const port = await listen();
      await new Promise<void>((resolve) => open.push(connect(port, '127.0.0.1', resolve)));
      const after = held.read();
      expect(after).not.toBe(before);
      expect(after).toBe(tcpFingerprint());
    } finally {
      held.dispose();
    }
    expect(sockstatFds()).toEqual(atStart);
    // Disposed, it reads by path and keeps nothing open.
    expect(held.read()).toBe(tcpFingerprint());
    expect(sockstatFds()).toEqual(atStart);
  });
});
