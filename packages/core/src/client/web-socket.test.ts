import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';
import { openWebSocket, UpgradeRefused, type ClientWebSocket } from './web-socket.js';

/**
 * The CLI's own WebSocket client (web-socket.ts, ws-frames.ts) against the
 * `ws` server the host runs: the handshake, masking (ws closes on an unmasked
 * client frame), lengths of each encoding, fragments, pings, both closes and
 * the limits, each through a real loopback connection.
 */

const servers: Array<{ server: Server; wss: WebSocketServer }> = [];
/** Upgraded sockets leave the HTTP server's books; a forged handshake's are ended here. */
const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const { server, wss } of servers.splice(0)) {
    wss.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

/** A ws server on a free port; `upgrade` may answer a handshake itself (a refusal, a forged 101). */
async function serve(options: { upgrade?: (socket: Socket, key: string) => boolean; protocol?: string } = {}): Promise<{ url: URL; next: Promise<WebSocket> }> {
  const server = createServer();
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1 << 20, handleProtocols: (offered) => options.protocol ?? [...offered][0] ?? false });
  let accepted!: (ws: WebSocket) => void;
  const next = new Promise<WebSocket>((resolve) => (accepted = resolve));
  server.on('upgrade', (req, socket, head) => {
    sockets.push(socket as Socket);
    if (options.upgrade?.(socket as Socket, String(req.headers['sec-websocket-key']))) return;
    wss.handleUpgrade(req, socket, head, (ws) => accepted(ws));
  });
  servers.push({ server, wss });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: new URL(`ws://127.0.0.1:${(server.address() as AddressInfo).port}/panel`), next };
}

const open = (url: URL, maxMessage = 1 << 20): Promise<ClientWebSocket> => openWebSocket(url, { protocols: ['p.v1'], timeoutMs: 5000, maxMessage });

function nextMessage(ws: ClientWebSocket): Promise<{ data: Buffer; binary: boolean }> {
  return new Promise((resolve) => {
    const off = ws.onMessage((message) => {
      off();
      resolve(message);
    });
  });
}

const closed = (ws: ClientWebSocket) => new Promise<{ code: number; reason: string }>((resolve) => ws.onClose(resolve));

describe('the CLI WebSocket client', () => {
  it('opens with the protocol the server chose and carries text and binary both ways at every length encoding', async () => {
    const { url, next } = await serve();
    const ws = await open(url);
    const peer = await next;
    expect(ws.protocol).toBe('p.v1');
    const received: Array<{ data: Buffer; binary: boolean }> = [];
    peer.on('message', (data, binary) => received.push({ data: data as Buffer, binary }));
    for (const size of [0, 125, 126, 65535, 65536, 300_000]) {
      const bytes = Buffer.alloc(size, size % 251);
      ws.send(bytes);
      ws.send(`t${size}`);
      peer.send(bytes);
      expect(await nextMessage(ws)).toEqual({ data: bytes, binary: true });
      peer.send(`é${size}`);
      expect(await nextMessage(ws)).toEqual({ data: Buffer.from(`é${size}`), binary: false });
    }
    await new Promise<void>((resolve) => peer.once('pong', () => resolve()).ping());
    // Everything the client sent came through masked and whole (ws fails a connection on an unmasked frame).
    expect(received.filter((m) => m.binary).map((m) => m.data.length)).toEqual([0, 125, 126, 65535, 65536, 300_000]);
    expect(received.filter((m) => !m.binary).map((m) => m.data.toString())).toEqual(['t0', 't125', 't126', 't65535', 't65536', 't300000']);
    ws.close();
  });

  it('joins fragments, with a ping between them answered with its payload', async () => {
    const { url, next } = await serve();
    const ws = await open(url);
    const peer = await next;
    const pong = new Promise<Buffer>((resolve) => peer.once('pong', resolve));
    const message = nextMessage(ws);
    peer.send('one ', { fin: false });
    peer.ping('between');
    peer.send('two ', { fin: false });
    peer.send('three', { fin: true });
    expect((await message).data.toString()).toBe('one two three');
    expect((await pong).toString()).toBe('between');
    const binary = nextMessage(ws);
    peer.send(Buffer.from([1, 2]), { binary: true, fin: false });
    peer.send(Buffer.from([3]), { binary: true, fin: true });
    expect(await binary).toEqual({ data: Buffer.from([1, 2, 3]), binary: true });
    const pongs = new Promise<Buffer>((resolve) => ws.onPong(resolve));
    ws.ping(Buffer.from('back'));
    expect((await pongs).toString()).toBe('back');
    ws.close();
  });

  it('closes either way with the code and reason said', async () => {
    const { url, next } = await serve();
    const first = await open(url);
    const peer = await next;
    const gone = closed(first);
    peer.close(4001, 'bye now');
    expect(await gone).toEqual({ code: 4001, reason: 'bye now' });

    const again = await serve();
    const second = await open(again.url);
    const otherPeer = await again.next;
    const peerSaw = new Promise<{ code: number; reason: string }>((resolve) => otherPeer.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    const done = closed(second);
    second.close(4002, 'client leaves');
    second.send('after close is not sent');
    expect(await peerSaw).toEqual({ code: 4002, reason: 'client leaves' });
    expect((await done).code).toBe(4002);
  });

  it('fails a connection whose server sends a message over the limit, a masked frame or an unknown opcode', async () => {
    const { url, next } = await serve();
    const ws = await open(url, 1000);
    const peer = await next;
    const peerSaw = new Promise<number>((resolve) => peer.once('close', (code) => resolve(code)));
    const gone = closed(ws);
    const seen: unknown[] = [];
    ws.onMessage((m) => seen.push(m));
    peer.send('a'.repeat(600), { fin: false });
    peer.send('b'.repeat(600), { fin: true });
    expect(await gone).toMatchObject({ code: 1006, reason: expect.stringContaining('over 1000 bytes') });
    expect(await peerSaw).toBe(1009);
    expect(seen).toEqual([]);

    for (const frame of [Buffer.from([0x81, 0x81, 1, 2, 3, 4, 0x61]), Buffer.from([0x83, 0x00]), Buffer.from([0x80, 0x00])]) {
      const forged = await serve({
        upgrade: (socket, key) => {
          const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
          socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\nSec-WebSocket-Protocol: p.v1\r\n\r\n`);
          socket.write(frame);
          return true;
        },
      });
      const client = await open(forged.url);
      expect((await closed(client)).code, frame.toString('hex')).toBe(1006);
    }
  });

  it('refuses a server that answers other than 101, or a 101 that is not the answer to its key', async () => {
    const refusing = await serve({
      upgrade: (socket) => {
        socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nptydeck-proof: abc\r\nContent-Length: 9\r\n\r\nrefused!\n');
        return true;
      },
    });
    const refusal = await open(refusing.url).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(UpgradeRefused);
    expect(refusal).toMatchObject({ status: 403, body: 'refused!\n', headers: { 'ptydeck-proof': 'abc' } });

    const forged = await serve({
      upgrade: (socket) => {
        socket.end('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: AAAAAAAAAAAAAAAAAAAAAAAAAAA=\r\nSec-WebSocket-Protocol: p.v1\r\n\r\n');
        return true;
      },
    });
    await expect(open(forged.url)).rejects.toThrow(/wrong Sec-WebSocket-Accept/);
    const otherProtocol = await serve({ protocol: 'not-offered' });
    await expect(open(otherProtocol.url)).rejects.toThrow(/subprotocol this client never offered/);
  });
});
