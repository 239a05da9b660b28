import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type WebSocket from 'ws';
import { decodeOutputFrame, type SessionId } from '@ptydeck/contract';
import { startLocalServer, type LocalServer } from '../host/local-server.js';
import { createPtyService } from '../pty/pty-service.js';
import type { PtyService } from '../pty/types.js';
import { ScreenService, type ScreenSnapshot } from '../screen/index.js';
import { openSocket } from '../testing/http.js';
import { fileTempDir, isolatedHome } from '../testing/isolated-env.js';
import { waitForExit } from '../testing/session-waits.js';

/** Small, so a flood trims past a screen well before the test's patience runs out. */
const SESSION_CAP = 2 * 1024 * 1024;

/**
 * The real screens, as slow as they are on a loaded machine during a flood:
 * each snapshot is handed over only once the log has trimmed past the
 * point it reflects (its serialized screen took longer than the flood took
 * to write the log's cap), so no viewer can continue from it. Once the flood
 * has ended nothing can outrun a screen any more: a snapshot asked for late
 * in the flood (a viewer that fell behind again on a loaded machine) is handed
 * over at the exit, not held forever for output that never comes.
 */
class OutrunScreens extends ScreenService {
  constructor(private readonly ptys: PtyService) {
    super(ptys);
  }

  override async snapshot(id: SessionId): Promise<ScreenSnapshot> {
    const snapshot = await super.snapshot(id);
    const service = this.ptys;
    await new Promise<void>((resolve) => {
      const trimmedPast = () => {
        try {
          return service.get(id)?.status !== 'running' || service.read(id, { maxBytes: 1 }).cursor > snapshot.cursor;
        } catch {
          return true; // removed: nothing more to wait for
        }
      };
      if (trimmedPast()) return resolve();
      const offs = [
        service.on('pty.data', (event) => event.id === id && settle()),
        service.on('pty.exited', (event) => event.id === id && settle()),
      ];
      function settle(): void {
        if (!trimmedPast()) return;
        for (const off of offs) off();
        resolve();
      }
    });
    return snapshot;
  }
}

let service: PtyService;
let screens: OutrunScreens;
let server: LocalServer;

beforeAll(async () => {
  service = createPtyService({ env: { ...process.env, HOME: isolatedHome() }, sessionLogBytes: SESSION_CAP, killGraceMs: 1000 });
  screens = new OutrunScreens(service);
  server = await startLocalServer({ service, screens, stateDir: fileTempDir('ptydeck-lagging-'), writeDiscovery: false, appDir: '/nonexistent' });
});

afterAll(async () => {
  await server.close();
  screens.dispose();
  await service.dispose();
});

/** One viewer of one session: frames checked to continue each other, resyncs counted; it acks while `acking`. */
class Viewer {
  frameBytes = 0;
  skipped = 0;
  resyncs = 0;
  next = 0;
  /** Frame bytes received since the last resync. */
  sinceResync = 0;
  /** The start of the first frame after each resync. */
  readonly resumedWith: string[] = [];
  acking = true;
  private wake: Array<() => void> = [];

  constructor(
    private readonly ws: WebSocket,
    readonly id: string,
  ) {
    ws.on('message', (data: Buffer, binary: boolean) => {
      if (binary) {
        const frame = decodeOutputFrame(new Uint8Array(data));
        if (frame.id !== id) return;
        if (frame.cursor !== this.next) throw new Error(`frame at ${frame.cursor}, expected ${this.next}: a gap nobody accounted for`);
        if (this.resyncs > this.resumedWith.length) this.resumedWith.push(Buffer.from(frame.data.subarray(0, 20)).toString('latin1'));
        this.next = frame.cursor + frame.data.length;
        this.frameBytes += frame.data.length;
        this.sinceResync += frame.data.length;
        if (this.acking) ws.send(JSON.stringify({ type: 'ack', id, cursor: this.next }));
      } else {
        const message = JSON.parse(data.toString('utf8'));
        if (message.type !== 'resync' || message.id !== id) return;
        expect(message.skipped, 'a resync says what lies between the viewer\'s output and its new cursor').toBe(message.cursor - this.next);
        this.skipped += message.skipped;
        this.resyncs++;
        this.next = message.cursor;
        this.sinceResync = 0;
      }
      const wake = this.wake;
      this.wake = [];
      for (const w of wake) w();
    });
    ws.send(JSON.stringify({ type: 'attach', id, cursor: 0 }));
  }

  async until(test: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!test()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting until ${what} (frames ${this.frameBytes} B, resyncs ${this.resyncs}, skipped ${this.skipped} B)`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
        this.wake.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
}

describe('a viewer that falls behind a flood', () => {
  it('goes on receiving live output after its resync, even when the flood outran the screen it was handed', async () => {
    const opened = await openSocket(server.port, { headers: { Origin: server.url }, protocols: ['ptydeck.v1', `ptydeck.token.${server.panelToken}`] });
    if (!('ws' in opened)) throw new Error(`refused ${opened.refused}`);
    await opened.messages.json((m) => m.type === 'snapshot');
    opened.ws.removeAllListeners('message'); // the viewer keeps accounts, not every frame

    const flood = service.create({ source: 'user', command: 'yes', args: ['a line of the flood'] });
    const viewer = new Viewer(opened.ws, flood.id);
    try {
      await viewer.until(() => viewer.frameBytes > 256 * 1024, 'the viewer streams the flood');
      // The viewer's terminal stalls (a busy renderer): no acks, so it falls more than the lag limit behind and is resynced.
      viewer.acking = false;
      await viewer.until(() => viewer.resyncs > 0, 'the stalled viewer is resynced');
      viewer.acking = true;
      // Parsing again, it gets the flood's output, not only screen after screen for as long as the flood runs.
      await viewer.until(() => viewer.sinceResync >= 1024 * 1024, 'the resynced viewer receives a MiB of live output');
      // Past what the screen shows it resumes at a line start: no escape sequence or character cut in two.
      expect(viewer.resumedWith[0]).toBe('a line of the flood\r');
    } finally {
      await service.kill(flood.id);
      await waitForExit(service, flood.id);
    }
    const end = service.read(flood.id, { maxBytes: 1 }).end;
    await viewer.until(() => viewer.next === end, 'the viewer reaches the end of the flood');
    expect(viewer.frameBytes + viewer.skipped, 'bytes sent + skipped = bytes written').toBe(end);
    opened.ws.close();
  });
});
