import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type WebSocket from 'ws';
import { decodeOutputFrame } from '@ptydeck/contract';
import { createPtyService } from '../pty/pty-service.js';
import { waitForExit } from '../testing/session-waits.js';
import type { PtyService } from '../pty/types.js';
import { startLocalServer, type LocalServer } from '../host/local-server.js';
import { recordFigure } from '../testing/figures.js';
import { openSocket, type MessageQueue } from '../testing/http.js';
import { fileTempDir, isolatedHome } from '../testing/isolated-env.js';
import { collectGarbage } from '../testing/leak-meters.js';

/**
 * Floods: 8 sessions run `yes` while a developer types into a ninth through
 * the panel. The issue asks for 10 s; the suite floods for 3 s by default
 * (PTYDECK_FLOOD_MS=10000 runs the full scenario): the caps are hit within
 * the first second, so longer only repeats the same trimming.
 */
const FLOOD_MS = Number(process.env.PTYDECK_FLOOD_MS ?? 3000);
const FLOODERS = 8;
const SESSION_CAP = 1024 * 1024;
const TOTAL_CAP = 4 * 1024 * 1024;
/** Memory outside the logs: the panel socket's backlog (stalls at 1 MiB), read buffers, frames in flight. */
const BUFFER_SLACK = 16 * 1024 * 1024;

let service: PtyService;
let server: LocalServer;

beforeAll(async () => {
  service = createPtyService({
    env: { ...process.env, HOME: isolatedHome(), SHELL: '/bin/bash' },
    sessionLogBytes: SESSION_CAP,
    totalLogBytes: TOTAL_CAP,
    killGraceMs: 1000,
  });
  server = await startLocalServer({ service, stateDir: fileTempDir('ptydeck-flood-'), writeDiscovery: false, appDir: '/nonexistent' });
});

afterAll(async () => {
  await server.close();
  await service.dispose();
});

/** What one viewer received for one session: frames checked for continuity, resyncs with their skipped counts. */
interface ViewerAccount {
  frameBytes: number;
  skipped: number;
  resyncs: number;
  next: number;
  text: string;
}

/** A panel that attaches to sessions and keeps an account of every byte it was sent or told it missed. */
class AccountingPanel {
  readonly accounts = new Map<string, ViewerAccount>();
  private waiters: Array<() => void> = [];

  constructor(
    readonly ws: WebSocket,
    readonly messages: MessageQueue,
    private readonly keepText: Set<string>,
  ) {
    ws.on('message', (data, binary) => {
      if (binary) {
        const frame = decodeOutputFrame(new Uint8Array(data as Buffer));
        const account = this.account(frame.id);
        if (frame.cursor !== account.next) throw new Error(`frame for ${frame.id} at ${frame.cursor}, expected ${account.next}: a gap nobody accounted for`);
        account.frameBytes += frame.data.length;
        account.next = frame.cursor + frame.data.length;
        if (this.keepText.has(frame.id)) account.text += Buffer.from(frame.data).toString('utf8');
        // As the app's terminal does once it has parsed a frame: the core sends a window past the last ack.
        this.ws.send(JSON.stringify({ type: 'ack', id: frame.id, cursor: account.next }));
      } else {
        const message = JSON.parse((data as Buffer).toString('utf8'));
        if (message.type === 'resync') {
          const account = this.account(message.id);
          // The viewer had everything before `next`; the resync says how much lies between that and its new cursor.
          expect(message.skipped, `resync of ${message.id}`).toBe(message.cursor - account.next);
          account.skipped += message.skipped;
          account.resyncs++;
          account.next = message.cursor;
          if (this.keepText.has(message.id)) account.text = message.screen;
        }
      }
      const waiters = this.waiters;
      this.waiters = [];
      for (const wake of waiters) wake();
    });
  }

  account(id: string): ViewerAccount {
    let account = this.accounts.get(id);
    if (!account) this.accounts.set(id, (account = { frameBytes: 0, skipped: 0, resyncs: 0, next: 0, text: '' }));
    return account;
  }

  attach(id: string): void {
    this.account(id);
    this.ws.send(JSON.stringify({ type: 'attach', id, cursor: 0 }));
  }

  async until(test: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!test()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, deadline - Date.now()));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
}

describe('flood', () => {
  it(`${FLOODERS} sessions run yes for ${FLOOD_MS} ms while keystrokes typed into a ninth echo; memory stays under the caps and skipped counts account for every dropped byte`, async () => {
    const opened = await openSocket(server.port, { headers: { Origin: server.url }, protocols: ['ptydeck.v1', `ptydeck.token.${server.panelToken}`] });
    if (!('ws' in opened)) throw new Error(`refused ${opened.refused}`);
    await opened.messages.json((m) => m.type === 'snapshot');

    // The developer's shell, opened from the panel like a new tab.
    opened.ws.send(JSON.stringify({ type: 'create', requestId: 'dev', cols: 100, rows: 30 }));
    const created = await opened.messages.json((m) => m.requestId === 'dev');
    expect(created.type).toBe('created');
    const dev: string = created.info.id;
    // From here on the panel keeps accounts, not messages: a queue of every frame would be the test's own leak.
    opened.ws.removeAllListeners('message');
    const panel = new AccountingPanel(opened.ws, opened.messages, new Set([dev]));
    panel.attach(dev);
    await panel.until(() => panel.account(dev).text.includes('rel$ '), 'the developer sees a prompt');

    const flooders = Array.from({ length: FLOODERS }, (_, i) => service.create({ source: 'agent', command: 'yes', args: [`flood-${i}`], title: `flood ${i}` }));
    for (const f of flooders) panel.attach(f.id);

    // A slow agent reading two of the floods at its own pace, as terminal_read would: 4 KiB per
    // 50 ms sample (80 KB/s), far behind a `yes` whose log the global cap keeps to its share (the
    // largest logs are trimmed first, so each flood holds about TOTAL_CAP / FLOODERS = 512 KiB).
    const readers = flooders.slice(0, 2).map((f) => ({ id: f.id, cursor: 0, bytes: 0, skipped: 0 }));
    const readOnce = (maxBytes = 4 * 1024) => {
      for (const r of readers) {
        const slice = service.read(r.id, { cursor: r.cursor, maxBytes });
        r.bytes += slice.data.length;
        r.skipped += slice.skipped;
        r.cursor = slice.next;
      }
    };

    // Memory and retained bytes, sampled throughout the flood.
    // Memory is read after a full GC every few samples: trimmed chunks are garbage until then, and
    // what matters is what the core holds on to, not how lazily V8 frees it.
    const peak = { arrayBuffers: 0, heapUsed: 0, retainedTotal: 0, retainedSession: 0, rawArrayBuffers: 0 };
    collectGarbage();
    const baseline = process.memoryUsage();
    let samples = 0;
    const sample = () => {
      peak.rawArrayBuffers = Math.max(peak.rawArrayBuffers, process.memoryUsage().arrayBuffers);
      if (samples++ % 10 === 0) {
        collectGarbage();
        const memory = process.memoryUsage();
        peak.arrayBuffers = Math.max(peak.arrayBuffers, memory.arrayBuffers);
        peak.heapUsed = Math.max(peak.heapUsed, memory.heapUsed);
      }
      let total = 0;
      for (const info of service.list()) {
        const probe = service.read(info.id, { maxBytes: 1 });
        const retained = probe.end - probe.cursor;
        peak.retainedSession = Math.max(peak.retainedSession, retained);
        total += retained;
      }
      peak.retainedTotal = Math.max(peak.retainedTotal, total);
      readOnce();
    };
    const sampler = setInterval(() => {
      sample();
      checkFlood();
    }, 50);
    // At least FLOOD_MS, and until the flood has done what it is here for: overflowed the global cap
    // and outrun the slow reader's retained window. On a loaded machine `yes` writes less per second,
    // so a fixed duration alone made this a throughput test (it failed at load 14 on 2 cores).
    // Checked by the 50 ms sampler, which runs whether or not the panel is sent anything.
    const written = () => flooders.reduce((sum, f) => sum + service.read(f.id, { maxBytes: 1 }).end, 0);
    const outrun = () => readers.every((r) => r.skipped > 0);
    const floodStarted = Date.now();
    let floodSeconds = FLOOD_MS / 1000;
    let floodDone: () => void = () => undefined;
    const floodOver = new Promise<void>((resolve) => (floodDone = resolve));
    const checkFlood = () => {
      if (Date.now() - floodStarted >= FLOOD_MS && written() > 2 * TOTAL_CAP && outrun()) floodDone();
    };

    // The developer types, one keystroke per frame, and each command's output comes back while the flood runs.
    let typedCommands = 0;
    try {
      for (let round = 0; round < 5; round++) {
        const word = `typed-${round}-${'x'.repeat(round)}`;
        for (const key of `echo ${word}`) opened.ws.send(JSON.stringify({ type: 'input', id: dev, data: key }));
        opened.ws.send(JSON.stringify({ type: 'input', id: dev, data: '\r' }));
        // The developer's bash has ptydeck's marks (OSC 133/633, keyed) before a command's output.
        await panel.until(() => new RegExp(`^(?:\\x1b\\][^\\x07]*\\x07)*${word}\\r?$`, 'm').test(panel.account(dev).text), `the developer's "${word}" echoes`);
        typedCommands++;
      }
      await floodOver;
      floodSeconds = (Date.now() - floodStarted) / 1000;
    } finally {
      clearInterval(sampler);
    }

    for (const f of flooders) await service.kill(f.id);
    for (const f of flooders) await waitForExit(service, f.id);
    sample();
    // Then the reader catches up: whatever it was too slow for, it is told it skipped.
    while (readers.some((r) => r.cursor < service.read(r.id, { maxBytes: 1 }).end)) readOnce(1024 * 1024);

    // The viewer catches up to the end of every log: frames plus skipped counts cover every byte written.
    await panel.until(() => flooders.every((f) => panel.account(f.id).next === service.read(f.id, { maxBytes: 1 }).end), 'the viewer reaches the end of every flood');
    let flooded = 0;
    let droppedForViewer = 0;
    for (const f of flooders) {
      const end = service.read(f.id, { maxBytes: 1 }).end;
      const account = panel.account(f.id);
      expect(account.frameBytes + account.skipped, `session ${f.id}: bytes sent + skipped = bytes written`).toBe(end);
      flooded += end;
      droppedForViewer += account.skipped;
    }
    for (const r of readers) {
      const end = service.read(r.id, { maxBytes: 1 }).end;
      expect(r.bytes + r.skipped, `reader of ${r.id}: bytes read + skipped = bytes written`).toBe(end);
      expect(r.skipped, 'the slow reader lost bytes to the cap and was told so').toBeGreaterThan(0);
    }
    expect(flooded, 'the flood overflowed the global cap').toBeGreaterThan(2 * TOTAL_CAP);
    expect(peak.retainedSession, 'no log over its cap').toBeLessThanOrEqual(SESSION_CAP);
    expect(peak.retainedTotal, 'all logs together under the global cap').toBeLessThanOrEqual(TOTAL_CAP);
    expect(peak.arrayBuffers, 'buffers held after GC stay within the logs\' cap and socket backlogs').toBeLessThan(baseline.arrayBuffers + TOTAL_CAP + BUFFER_SLACK);
    expect(typedCommands).toBe(5);
    expect(service.get(dev)?.status).toBe('running');

    recordFigure('floodBytes', flooded, {
      seconds: floodSeconds,
      sessions: FLOODERS,
      droppedForViewer,
      readerSkipped: readers.reduce((n, r) => n + r.skipped, 0),
      peakRetainedTotal: peak.retainedTotal,
      peakArrayBuffersOverBaseline: peak.arrayBuffers - baseline.arrayBuffers,
      peakHeapOverBaseline: peak.heapUsed - baseline.heapUsed,
      peakRawArrayBuffersOverBaseline: peak.rawArrayBuffers - baseline.arrayBuffers,
      typedCommands,
    });
    opened.ws.close();
  });
});
