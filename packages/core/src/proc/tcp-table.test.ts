import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { readListeningTables, tcpSockets } from './tcp-table.js';

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

describe.runIf(process.platform === 'linux')('readListeningTables', () => {
  it('finds every listening socket, however many reads they take, with connections open after them', async () => {
    // More listeners than one read of a few lines holds, and an established connection after them.
    const ports = await Promise.all(Array.from({ length: 40 }, listen));
    await new Promise<void>((resolve) => open.push(connect(ports[0]!, '127.0.0.1', resolve)));
    const found = new Set(
      [...tcpSockets(readListeningTables()!)].filter((socket) => socket.state === '0A').map((socket) => Number.parseInt(socket.local.split(':')[1]!, 16)),
    );
    for (const port of ports) expect(found).toContain(port);
  });
});
