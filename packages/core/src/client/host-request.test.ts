import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { requestJson } from './host-request.js';

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

describe('requestJson', () => {
  it('takes an answer whole by its Content-Length before the server closes', async () => {
    const body = JSON.stringify({ sessions: [] });
    // The server answers and keeps the connection open: the answer counts as soon as it is all there.
    const { port } = await recordingServer((socket) => socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body}`));
    const answer = await requestJson(`http://127.0.0.1:${port}/snapshot`, { method: 'POST', timeoutMs: 10_000 });
    expect(answer).toMatchObject({ status: 200, body: { sessions: [] } });
  });

  it('cuts a connection the server trickles on after a whole answer, at the exchange timeout', async () => {
    const body = JSON.stringify({ ok: true });
    let closed!: () => void;
    const cut = new Promise<void>((resolve) => (closed = resolve));
    let trickle: NodeJS.Timeout | undefined;
    const { port } = await recordingServer((socket) => {
      socket.on('close', () => {
        clearInterval(trickle);
        closed();
      });
      socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
      // Never closing, and writing on: a write fails (and the socket closes) once the client has cut the connection.
      trickle = setInterval(() => socket.write(' '), 20);
    });
    // The exchange's clock is a fake one, moved only once the answer is in: a loaded machine's late
    // answer can no longer miss a short timeout, and the cut is seen to come from that timer.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const answer = await requestJson(`http://127.0.0.1:${port}/ticket`, { method: 'POST', timeoutMs: 300 });
    expect(answer.body).toEqual({ ok: true });
    let isCut = false;
    void cut.then(() => (isCut = true));
    await vi.advanceTimersByTimeAsync(299);
    expect(isCut).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await cut;
  });

  it('refuses what is not HTTP as soon as it comes', async () => {
    const { port } = await recordingServer((socket) => socket.write('SSH-2.0-OpenSSH_9.2\r\n\r\n'));
    await expect(requestJson(`http://127.0.0.1:${port}/snapshot`, { method: 'POST', timeoutMs: 10_000 })).rejects.toThrow(/not HTTP/);
  });
});
