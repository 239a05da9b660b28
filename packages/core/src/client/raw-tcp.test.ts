import { createServer, type Server, type Socket } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../testing/poll-until.js';
import { connectRawTcp, type RawTcpSocket } from './raw-tcp.js';

const servers: Server[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

/** A half-open echo of one request: what the client wrote until its FIN, then `answer` and this side's close. */
async function answering(answer: (request: string) => string, host = '127.0.0.1'): Promise<{ port: number; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    sockets.push(socket);
    let request = '';
    socket.on('data', (chunk) => (request += chunk.toString('latin1')));
    socket.on('end', () => {
      requests.push(request);
      socket.end(answer(request));
    });
    socket.on('error', () => {});
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { port: (server.address() as { port: number }).port, requests };
}

/** Every event the socket emits, in order, with the data as text, until 'close'. */
function recorded(socket: RawTcpSocket): Promise<string[]> {
  const events: string[] = [];
  return new Promise((resolve) => {
    socket.on('connect', () => events.push('connect'));
    socket.on('data', (chunk: Buffer) => events.push(`data ${chunk.toString('latin1')}`));
    socket.on('end', () => events.push('end'));
    socket.on('error', (error: Error & { code?: string }) => events.push(`error ${error.code}`));
    socket.once('close', () => resolve([...events, 'close']));
  });
}

describe('a RawTcpSocket on Node 20', () => {
  it('writes what it was given before it connected, its FIN after, and reads the answer to the server close', async () => {
    const { port, requests } = await answering((request) => `answer to ${request.length} bytes`);
    const socket = connectRawTcp(port, '127.0.0.1')!;
    expect(socket).toBeDefined();
    expect(socket.connecting).toBe(true);
    const events = recorded(socket);
    socket.write('GET / HTTP/1.1\r\n');
    socket.end(Buffer.from('\r\n', 'latin1'));
    expect(await events).toEqual(['connect', 'data answer to 18 bytes', 'end', 'close']);
    expect(requests).toEqual(['GET / HTTP/1.1\r\n\r\n']);
    expect(socket.destroyed).toBe(true);
  });

  it('paused, emits nothing it read until resumed, as the WebSocket client holds a 101\'s tail (web-socket.ts)', async () => {
    const { port, requests } = await answering(() => 'held');
    const socket = connectRawTcp(port, '127.0.0.1')!;
    const events = recorded(socket);
    socket.pause();
    socket.setNoDelay(true);
    socket.end('x');
    // The server wrote its answer and its FIN as it read the request's end: both wait in the kernel, unread.
    let read = 0;
    socket.on('data', () => read++);
    await until(() => requests.length === 1, 'the server to answer');
    expect(read).toBe(0);
    expect(socket.destroyed).toBe(false);
    socket.resume();
    expect(await events).toEqual(['connect', 'data held', 'end', 'close']);
  });

  it('connects to an IPv6 address', async () => {
    const { port } = await answering(() => 'six', '::1').catch(() => ({ port: 0 }));
    // A machine with no IPv6 loopback has nothing to connect to.
    if (port === 0) return;
    const socket = connectRawTcp(port, '::1')!;
    const events = recorded(socket);
    socket.end('x');
    expect(await events).toEqual(['connect', 'data six', 'end', 'close']);
  });

  it('says a refused connection as an error with its code, then closes', async () => {
    const { port } = await answering(() => '');
    await new Promise((resolve) => servers.pop()!.close(resolve));
    const socket = connectRawTcp(port, '127.0.0.1')!;
    expect(await recorded(socket)).toEqual(['error ECONNREFUSED', 'close']);
  });

  it('destroyed while it connects, emits no connect and writes nothing', async () => {
    const { port, requests } = await answering(() => 'unheard');
    const socket = connectRawTcp(port, '127.0.0.1')!;
    const events = recorded(socket);
    socket.write('never sent');
    socket.destroy();
    expect(await events).toEqual(['close']);
    // The server may have accepted it, and seen it closed: with not a byte.
    expect(requests.join('')).toBe('');
  });
});

// gc() in a new context (runInNewContext('gc')), as a test may not start Node with --expose-gc.
setFlagsFromString('--expose-gc');

describe('a RawTcpSocket write the kernel cannot take at once', () => {
  it('keeps its buffer until the write completes, through garbage collections', async () => {
    // The server reads nothing until told: 16 MiB cannot fit the socket buffers, so most of the write completes later.
    let server!: Socket;
    const received: Buffer[] = [];
    const listener = createServer((socket) => {
      server = socket;
      sockets.push(socket);
      socket.pause();
      socket.on('data', (chunk: Buffer) => received.push(chunk));
    });
    servers.push(listener);
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const socket = connectRawTcp((listener.address() as { port: number }).port, '127.0.0.1')!;
    await new Promise((resolve) => socket.once('connect', resolve));
    const size = 16 * 1024 * 1024;
    // Only the socket refers to the written buffer once write() returns.
    (() => socket.write(new Uint8Array(size).fill(0x61)))();
    await until(() => server !== undefined, 'the server to accept');
    const gc = runInNewContext('gc') as () => void;
    // Collected and its memory handed to new buffers of another byte, were nothing holding it.
    for (let round = 0; round < 4; round++) {
      gc();
      for (let i = 0; i < 8; i++) new Uint8Array(size / 4).fill(0x7a);
    }
    server.resume();
    await until(() => received.reduce((sum, chunk) => sum + chunk.length, 0) >= size, 'the whole write to arrive');
    const all = Buffer.concat(received);
    expect(all.length).toBe(size);
    expect(all.indexOf(0x7a)).toBe(-1);
    socket.destroy();
  });
});
