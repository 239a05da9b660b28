import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeOutputFrame } from '@ptydeck/contract';
import { createPtyService } from '../pty/pty-service.js';
import { waitForOutput } from '../testing/session-waits.js';
import type { PtyService } from '../pty/types.js';
import { startLocalServer, type LocalServer } from '../host/local-server.js';
import { recordFigure } from '../testing/figures.js';
import { openSocket } from '../testing/http.js';
import { fileTempDir, isolatedHome } from '../testing/isolated-env.js';
import { until } from '../testing/poll-until.js';

/**
 * A viewer's socket cut mid-frame, in both directions, then reconnected: the
 * server lets go of the dead panel (its subscriptions to the service are
 * undone), other sessions keep running, and the new socket resumes from the
 * viewer's cursor with every byte either delivered or counted as skipped.
 */
let service: PtyService;
let server: LocalServer;
/** Subscriptions to the service that are live right now: a panel that is not cleaned up leaves some behind. */
let liveSubscriptions = 0;

beforeAll(async () => {
  const real = createPtyService({ env: { ...process.env, HOME: isolatedHome() }, killGraceMs: 500 });
  // Every method of the real service (a copy of it would miss those added later), with `on` counted.
  const on: PtyService['on'] = (event, listener) => {
    liveSubscriptions++;
    const off = real.on(event, listener);
    let done = false;
    return () => {
      if (!done) liveSubscriptions--;
      done = true;
      off();
    };
  };
  service = new Proxy(real, {
    get(target, key) {
      if (key === 'on') return on;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  server = await startLocalServer({ service, stateDir: fileTempDir('ptydeck-viewer-'), writeDiscovery: false, appDir: '/nonexistent' });
});

afterAll(async () => {
  await server.close();
  await service.dispose();
});

/** A WebSocket client over a bare TCP socket, so the test decides exactly where the connection is cut. */
class RawPanel {
  private buffer = Buffer.alloc(0);
  private upgraded = false;
  /** Bytes of the binary frame being received that are still to come: > 0 means we are mid-frame. */
  remainingInFrame = 0;
  /**
   * Once a session's output passes this cursor, the next output frame is taken
   * only halfway and everything after it is dropped, as if the connection died
   * there: on loopback a reader that keeps up gets whole frames, so a cut in
   * the middle of one has to be placed deliberately.
   */
  cutAfter = Number.POSITIVE_INFINITY;
  cut = false;
  /** `next` of the last complete output frame, per session. */
  readonly next = new Map<string, number>();
  onProgress: () => void = () => {};

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
  }

  static open(port: number, token: string): Promise<RawPanel> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      const panel = new RawPanel(socket);
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.write(
          [
            'GET /panel HTTP/1.1',
            `Host: 127.0.0.1:${port}`,
            `Origin: http://127.0.0.1:${port}`,
            'Upgrade: websocket',
            'Connection: Upgrade',
            `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
            'Sec-WebSocket-Version: 13',
            `Sec-WebSocket-Protocol: ptydeck.v1, ptydeck.token.${token}`,
            '',
            '',
          ].join('\r\n'),
        );
      });
      panel.onProgress = () => {
        if (panel.upgraded) {
          panel.onProgress = () => {};
          resolve(panel);
        }
      };
    });
  }

  /** A masked client frame; `declared` larger than the payload leaves the frame unfinished. */
  static frame(text: string, declared?: number): Buffer {
    const payload = Buffer.from(text, 'utf8');
    const length = declared ?? payload.length;
    const head = length < 126 ? Buffer.from([0x81, 0x80 | length]) : Buffer.from([0x81, 0x80 | 126, length >> 8, length & 0xff]);
    const mask = randomBytes(4);
    const masked = Buffer.from(payload.map((byte, i) => byte ^ mask[i % 4]!));
    return Buffer.concat([head, mask, masked]);
  }

  send(message: unknown): void {
    this.socket.write(RawPanel.frame(JSON.stringify(message)));
  }

  private receive(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    if (!this.upgraded) {
      const end = this.buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = this.buffer.subarray(0, end).toString('latin1');
      if (!head.startsWith('HTTP/1.1 101')) throw new Error(`upgrade refused: ${head}`);
      this.upgraded = true;
      this.buffer = this.buffer.subarray(end + 4);
    }
    // Server frames are unmasked: [FIN|opcode][len] [ext len] payload.
    for (;;) {
      if (this.buffer.length < 2) break;
      const opcode = this.buffer[0]! & 0x0f;
      let length = this.buffer[1]! & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (this.buffer.length < 4) break;
        length = this.buffer.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (this.buffer.length < 10) break;
        length = Number(this.buffer.readBigUInt64BE(2));
        offset = 10;
      }
      if (this.cut) return;
      if (opcode === 0x2 && [...this.next.values()].some((next) => next >= this.cutAfter)) {
        this.cut = true;
        this.remainingInFrame = Math.ceil(length / 2);
        this.buffer = Buffer.alloc(0);
        this.onProgress();
        return;
      }
      if (this.buffer.length < offset + length) {
        this.remainingInFrame = offset + length - this.buffer.length;
        break;
      }
      this.remainingInFrame = 0;
      const payload = this.buffer.subarray(offset, offset + length);
      if (opcode === 0x2) {
        const frame = decodeOutputFrame(new Uint8Array(payload));
        this.next.set(frame.id, frame.cursor + frame.data.length);
      }
      this.buffer = this.buffer.subarray(offset + length);
    }
    this.onProgress();
  }
}

describe('viewer faults', () => {
  it('a socket cut in the middle of a frame the panel was sending is let go, and nothing else notices', async () => {
    const baseline = liveSubscriptions;
    const bystander = service.create({ source: 'user', command: 'cat' });
    const panel = await RawPanel.open(server.port, server.panelToken);
    await until(() => liveSubscriptions > baseline, 'the panel subscribed');
    // Announce 4000 bytes, send 30, and cut the connection.
    panel.socket.write(RawPanel.frame(JSON.stringify({ type: 'input', id: bystander.id, data: 'never' }).slice(0, 30), 4000));
    panel.socket.destroy();
    await until(() => liveSubscriptions === baseline, 'the cut panel is let go');
    service.write(bystander.id, 'still-here\r');
    const text = await waitForOutput(service, bystander.id, 'still-here\r\nstill-here\r\n');
    expect(text).not.toContain('never');
    await service.remove(bystander.id);
  });

  it('a socket cut in the middle of an output frame, reconnected with its cursor, resumes with every byte delivered or counted as skipped', async () => {
    const baseline = liveSubscriptions;
    const flood = service.create({ source: 'user', command: 'yes', args: ['resume'] });
    const panel = await RawPanel.open(server.port, server.panelToken);
    panel.cutAfter = 128 * 1024;
    // Cut once a few frames have arrived, halfway through the next one.
    const cut = new Promise<void>((resolve) => {
      panel.onProgress = () => {
        if (panel.cut) resolve();
      };
    });
    panel.send({ type: 'attach', id: flood.id, cursor: 0 });
    await cut;
    const resumeFrom = panel.next.get(flood.id)!;
    const cutWithBytesPending = panel.remainingInFrame;
    panel.socket.destroy();
    await until(() => liveSubscriptions === baseline, 'the cut panel is let go');

    // The viewer reconnects and attaches from the last frame it applied.
    const again = await openSocket(server.port, { headers: { Origin: server.url }, protocols: ['ptydeck.v1', `ptydeck.token.${server.panelToken}`] });
    if (!('ws' in again)) throw new Error(`refused ${again.refused}`);
    again.ws.send(JSON.stringify({ type: 'attach', id: flood.id, cursor: resumeFrom }));
    const first = await again.messages.waitFor((m) => {
      if (m.binary) return { kind: 'frame' as const, cursor: decodeOutputFrame(new Uint8Array(m.data)).cursor, skipped: 0 };
      const message = JSON.parse(m.data.toString('utf8'));
      return message.type === 'resync' && message.id === flood.id ? { kind: 'resync' as const, cursor: message.cursor as number, skipped: message.skipped as number } : undefined;
    });
    if (first.kind === 'frame') expect(first.cursor, 'frames resume exactly at the cursor: nothing repeated, nothing lost').toBe(resumeFrom);
    else expect(first.cursor - resumeFrom, 'a resync counts every byte between the cursor and the screen').toBe(first.skipped);
    again.ws.close();
    await service.kill(flood.id);
    await until(() => liveSubscriptions === baseline, 'the reconnected panel is let go after close');
    recordFigure('faultViewerCut', 2, { cutWithBytesPending, resumedWith: first.kind });
  });
});
