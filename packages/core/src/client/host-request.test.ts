import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { holdRequest, requestJson } from './host-request.js';
import { until } from '../testing/poll-until.js';

/** A TCP server that records each connection's bytes and whether it closed, and answers as the test says. */
function recordingServer(answer?: (socket: Socket) => void): Promise<{ server: Server; port: number; connections: Array<{ bytes: string; closed: boolean }> }> {
  const connections: Array<{ bytes: string; closed: boolean }> = [];
  // Half-open allowed: the server closes only when the test says, not at the client's end of its request.
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    sockets.push(socket);
    const seen = { bytes: '', closed: false };
    connections.push(seen);
    socket.on('data', (chunk) => {
      seen.bytes += chunk.toString('latin1');
      if (seen.bytes.includes('\r\n\r\n')) answer?.(socket);
    });
    socket.on('error', () => {});
    // The client's close: its FIN (the server, half-open, stays) or a reset.
    socket.on('end', () => (seen.closed = true));
    socket.on('close', () => (seen.closed = true));
  });
  servers.push(server);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as { port: number }).port, connections })));
}

const servers: Server[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

describe('holdRequest', () => {
  it('connects at once, and a cancelled request closes its connection with not a byte written', async () => {
    const { port, connections } = await recordingServer();
    const held = holdRequest(`http://127.0.0.1:${port}/snapshot`, { method: 'POST', timeoutMs: 5000 });
    await until(() => connections.length === 1, 'the connection');
    held.cancel();
    await until(() => connections[0]!.closed, 'the close');
    // TCP keeps order: whatever the client wrote came before its close.
    expect(connections[0]!.bytes).toBe('');
    await expect(held.send()).rejects.toThrow();
  });

  it('writes the request on send() and reads its answer', async () => {
    const { port, connections } = await recordingServer((socket) => socket.end('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{"ok":true}'));
    const held = holdRequest(`http://127.0.0.1:${port}/snapshot`, { method: 'POST', timeoutMs: 5000 });
    await until(() => connections.length === 1, 'the connection');
    const answer = await held.send();
    expect(answer).toMatchObject({ status: 200, body: { ok: true } });
    expect(connections[0]!.bytes).toMatch(/^POST \/snapshot HTTP\/1\.1\r\n/);
  });
});

describe('requestJson', () => {
  it('takes an answer whole by its Content-Length before the server closes', async () => {
    const body = JSON.stringify({ sessions: [] });
    // The server answers and keeps the connection open: the answer counts as soon as it is all there.
    const { port } = await recordingServer((socket) => socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body}`));
    const answer = await requestJson(`http://127.0.0.1:${port}/snapshot`, { method: 'POST', timeoutMs: 10_000 });
    expect(answer).toMatchObject({ status: 200, body: { sessions: [] } });
  });

  it('refuses what is not HTTP as soon as it comes', async () => {
    const { port } = await recordingServer((socket) => socket.write('SSH-2.0-OpenSSH_9.2\r\n\r\n'));
    await expect(requestJson(`http://127.0.0.1:${port}/snapshot`, { method: 'POST', timeoutMs: 10_000 })).rejects.toThrow(/not HTTP/);
  });
});
