import { once } from 'node:events';
import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { LeanSocket } from './lean-socket.mjs';

/** A frame as a server sends it (unmasked). */
function serverFrame(opcode, payload, fin = true) {
  const length = payload.length;
  const lengthBytes = length < 126 ? 0 : length < 65536 ? 2 : 8;
  const head = Buffer.alloc(2 + lengthBytes);
  head[0] = (fin ? 0x80 : 0) | opcode;
  head[1] = lengthBytes === 0 ? length : lengthBytes === 2 ? 126 : 127;
  if (lengthBytes === 2) head.writeUInt16BE(length, 2);
  if (lengthBytes === 8) head.writeBigUInt64BE(BigInt(length), 2);
  return Buffer.concat([head, payload]);
}

function payloadOf(length, seed) {
  const payload = Buffer.alloc(length);
  for (let i = 0; i < length; i++) payload[i] = (i * 7 + seed) & 0xff;
  return payload;
}

/** A socket past its handshake, fed by hand: its own TCP socket is never used. */
function openSocket() {
  return new LeanSocket('ws://127.0.0.1:1/none', [], { open: { write: () => true, end: () => {}, destroy: () => {} } });
}

describe('the bench lean WebSocket client', () => {
  // Figure 2's client reads every socket read into one buffer that the next read overwrites: a frame split
  // across reads must be held by copy, and a frame within one read handed on whole.
  it('hands on every message intact however the stream is cut, from a read buffer that is overwritten', () => {
    const messages = [
      [0x2, payloadOf(0, 1)],
      [0x2, payloadOf(5, 2)],
      [0x1, Buffer.from('{"type":"snapshot"}')],
      [0x2, payloadOf(125, 3)],
      [0x2, payloadOf(126, 4)],
      [0x2, payloadOf(65_535, 5)],
      [0x2, payloadOf(65_536, 6)],
      [0x2, payloadOf(200_000, 7)],
      [0x2, payloadOf(3, 8)],
    ];
    const stream = Buffer.concat([
      ...messages.map(([opcode, payload]) => serverFrame(opcode, payload)),
      // A fragmented text message: two parts around a ping.
      serverFrame(0x1, Buffer.from('{"type":'), false),
      serverFrame(0x9, Buffer.from('p')),
      serverFrame(0x0, Buffer.from('"resync"}')),
    ]);
    const expected = [...messages.map(([opcode, payload]) => [opcode === 0x2, payload]), [false, Buffer.from('{"type":"resync"}')]];
    for (const cut of [1, 2, 3, 7, 100, 4096, 65_537, stream.length]) {
      const socket = openSocket();
      const got = [];
      socket.on('message', (data, isBinary) => got.push([isBinary, Buffer.from(data)]));
      const readBuffer = Buffer.alloc(cut);
      for (let at = 0; at < stream.length; at += cut) {
        const bytes = stream.copy(readBuffer, 0, at, Math.min(stream.length, at + cut));
        socket.read(readBuffer.subarray(0, bytes));
        readBuffer.fill(0xee); // the next read overwrites it
      }
      expect(got.length, `cut ${cut}`).toBe(expected.length);
      for (let i = 0; i < expected.length; i++) {
        expect(got[i][0], `cut ${cut}, message ${i}`).toBe(expected[i][0]);
        expect(got[i][1].equals(expected[i][1]), `cut ${cut}, message ${i}`).toBe(true);
      }
    }
  });

  it('speaks to a ws server: subprotocol and headers, messages either way, close', async () => {
    const server = createServer();
    const wss = new WebSocketServer({ server, handleProtocols: (protocols) => [...protocols][0] });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address();
    const received = [];
    wss.on('connection', (peer, request) => {
      peer.on('message', (data, isBinary) => received.push([isBinary, data.toString()]));
      peer.send(JSON.stringify({ origin: request.headers.origin, protocol: peer.protocol }));
      peer.send(payloadOf(300_000, 9), { binary: true });
    });
    try {
      const socket = new LeanSocket(`ws://127.0.0.1:${port}/panel`, ['token.abc'], { headers: { Origin: 'http://example' } });
      const got = [];
      const two = new Promise((resolve) =>
        socket.on('message', (data, isBinary) => {
          got.push([isBinary, Buffer.from(data)]);
          if (got.length === 2) resolve();
        }),
      );
      await two;
      expect(JSON.parse(got[0][1].toString())).toEqual({ origin: 'http://example', protocol: 'token.abc' });
      expect(got[1][0]).toBe(true);
      expect(got[1][1].equals(payloadOf(300_000, 9))).toBe(true);
      const long = 'x'.repeat(70_000);
      socket.send('{"type":"ack"}');
      socket.send(long);
      while (received.length < 2) await once(wss.clients.values().next().value, 'message');
      expect(received).toEqual([
        [false, '{"type":"ack"}'],
        [false, long],
      ]);
      const closed = once(socket, 'close');
      socket.close();
      await closed;
      expect(socket.readyState).toBe(socket.CLOSED);
    } finally {
      wss.close();
      server.close();
    }
  });
});
