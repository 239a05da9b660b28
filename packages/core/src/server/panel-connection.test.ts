import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type WebSocket from 'ws';
import { ACK_WINDOW, decodeOutputFrame, type SessionInfo } from '@ptydeck/contract';
import { createPtyService } from '../pty/pty-service.js';
import type { PtyService } from '../pty/types.js';
import { lostRecord } from '../testing/lost-records.js';
import { LAG_LIMIT } from './viewer-streams.js';
import { startTestHttpServer, type TestHttpServer } from '../testing/http-core.js';
import { MessageQueue, openSocket } from '../testing/http.js';
import { fileTempDir } from '../testing/isolated-env.js';

let service: PtyService;
let core: TestHttpServer;

beforeAll(async () => {
  // A HOME of its own keeps the login shell off the developer's rc files (pyenv,
  // nvm and friends can take seconds or hang on a stale lock): the shell is what's under test here.
  const home = fileTempDir('ptydeck-home-');
  service = createPtyService({ env: { ...process.env, HOME: home } });
  core = await startTestHttpServer({ service, writeDiscovery: false, appDir: '/nonexistent' });
});

afterAll(async () => {
  await core.close();
  await service.dispose();
});

/**
 * A panel client: the socket, its messages, and each session's output
 * reassembled from frames. It acknowledges every frame as the app's terminal
 * does once it has parsed it, unless told not to (`acking = false`).
 */
class Panel {
  /** Output text per session, with the cursor each frame claimed checked for continuity. */
  readonly output = new Map<string, { text: string; next: number; skipped: number; resyncs: number; frameBytes: number; frameBytesAtResyncs: number[]; resyncCursors: number[] }>();
  acking = true;
  private constructor(
    readonly ws: WebSocket,
    readonly messages: MessageQueue,
  ) {
    ws.on('message', (data, binary) => {
      if (binary) {
        const frame = decodeOutputFrame(new Uint8Array(data as Buffer));
        const entry = this.entry(frame.id);
        if (frame.cursor !== entry.next) throw new Error(`frame cursor ${frame.cursor} != expected ${entry.next}`);
        entry.text += Buffer.from(frame.data).toString('utf8');
        entry.next = frame.cursor + frame.data.length;
        entry.frameBytes += frame.data.length;
        if (this.acking) this.send({ type: 'ack', id: frame.id, cursor: entry.next });
        return;
      }
      const message = JSON.parse(data.toString());
      if (message.type === 'resync') {
        const entry = this.entry(message.id);
        entry.text = message.screen;
        entry.next = message.cursor;
        entry.skipped += message.skipped;
        entry.resyncs += 1;
        entry.frameBytesAtResyncs.push(entry.frameBytes);
        entry.resyncCursors.push(message.cursor);
      }
    });
  }

  static async open(): Promise<Panel> {
    const result = await openSocket(core.port, { headers: { Origin: core.url }, protocols: [`ptydeck.token.${core.panelToken}`] });
    if (!('ws' in result)) throw new Error(`refused ${result.refused}`);
    return new Panel(result.ws, result.messages);
  }

  entry(id: string) {
    let entry = this.output.get(id);
    if (!entry) this.output.set(id, (entry = { text: '', next: 0, skipped: 0, resyncs: 0, frameBytes: 0, frameBytesAtResyncs: [], resyncCursors: [] }));
    return entry;
  }

  send(message: unknown): void {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** Resolves once the session's reassembled output satisfies `test`. */
  async until(id: string, test: (text: string) => boolean): Promise<void> {
    while (!test(this.entry(id).text)) await new Promise<void>((r) => this.ws.once('message', () => r()));
  }

  async create(requestId: string): Promise<SessionInfo> {
    const from = this.messages.all.length;
    this.send({ type: 'create', requestId, cols: 100, rows: 30 });
    const reply = await this.messages.json((m) => m.requestId === requestId, from);
    if (reply.type !== 'created') throw new Error(`create failed: ${JSON.stringify(reply)}`);
    return reply.info;
  }
}

describe('panel protocol over a real WebSocket with real bash', () => {
  it('creates a user shell, attaches, echoes input, resizes and closes', async () => {
    const panel = await Panel.open();
    const snapshot = await panel.messages.json((m) => m.type === 'snapshot');
    expect(snapshot.instance).toBe(core.instance);
    // The overview's set-up snippets run this launcher: it must be the real one.
    expect(snapshot.mcpLaunch.command).toBe('node');
    expect(snapshot.mcpLaunch.args.at(-1)).toBe('mcp');
    expect(existsSync(snapshot.mcpLaunch.args[0])).toBe(true);

    const info = await panel.create('r1');
    expect(info).toMatchObject({ source: 'user', cols: 100, rows: 30, status: 'running' });
    await panel.messages.json((m) => m.type === 'event' && m.event.type === 'pty.created' && m.event.info.id === info.id);

    panel.send({ type: 'attach', id: info.id, cursor: null });
    // Attaching without a cursor restores the screen first.
    await panel.messages.json((m) => m.type === 'resync' && m.id === info.id);
    panel.send({ type: 'input', id: info.id, data: 'echo hi-$((40+2))\r' });
    await panel.until(info.id, (text) => text.includes('hi-42'));

    panel.send({ type: 'resize', id: info.id, cols: 120, rows: 40 });
    await panel.messages.json((m) => m.type === 'event' && m.event.type === 'pty.updated' && m.event.info.cols === 120 && m.event.info.rows === 40);
    panel.send({ type: 'input', id: info.id, data: 'stty size\r' });
    await panel.until(info.id, (text) => text.includes('40 120'));

    panel.send({ type: 'close', id: info.id });
    await panel.messages.json((m) => m.type === 'event' && m.event.type === 'pty.exited' && m.event.id === info.id);
    await panel.messages.json((m) => m.type === 'event' && m.event.type === 'pty.removed' && m.event.id === info.id);
    expect(service.get(info.id)).toBeUndefined();
    panel.ws.close();
  });

  it("shows a lost session's saved output, refuses its input saying the process is gone, and removes it on close, an agent's too", async () => {
    const mine = service.restore(lostRecord({}, 'mine-before-the-crash\r\n', { start: 500 }));
    const agents = service.restore(lostRecord({ source: 'agent', owner: 'gone-agent', ownerName: 'claude-code' }, 'agent-marker-$7\r\n'));
    const panel = await Panel.open();
    const snapshot = await panel.messages.json((m) => m.type === 'snapshot');
    expect(snapshot.sessions.filter((info: SessionInfo) => info.status === 'lost').map((info: SessionInfo) => info.id)).toEqual([mine.id, agents.id]);

    panel.send({ type: 'attach', id: mine.id, cursor: null });
    await panel.until(mine.id, (text) => text.includes('mine-before-the-crash'));
    expect(panel.entry(mine.id).next).toBe(500 + 'mine-before-the-crash\r\n'.length);
    panel.send({ type: 'input', id: mine.id, data: 'ls\r' });
    const refused = await panel.messages.json((m) => m.type === 'error');
    expect(refused).toMatchObject({ code: 'not_running', message: expect.stringMatching(/process is gone/) });

    for (const id of [mine.id, agents.id]) {
      panel.send({ type: 'close', id });
      await panel.messages.json((m) => m.type === 'event' && m.event.type === 'pty.removed' && m.event.id === id);
      expect(service.get(id)).toBeUndefined();
    }
    panel.ws.close();
  });

  it('resumes from a cursor without a resync and without repeating bytes', async () => {
    const first = await Panel.open();
    const info = await first.create('r2');
    first.send({ type: 'attach', id: info.id, cursor: null });
    first.send({ type: 'input', id: info.id, data: 'echo one-$((1))\r' });
    await first.until(info.id, (t) => t.includes('one-1'));
    const cursor = first.entry(info.id).next;
    first.ws.close();

    const second = await Panel.open();
    second.entry(info.id).next = cursor;
    second.send({ type: 'attach', id: info.id, cursor });
    second.send({ type: 'input', id: info.id, data: 'echo two-$((2))\r' });
    await second.until(info.id, (t) => t.includes('two-2'));
    expect(second.entry(info.id).resyncs).toBe(0);
    expect(second.entry(info.id).text).not.toContain('one-1');
    await service.remove(info.id);
    second.ws.close();
  });

  it('answers every invalid frame with an error and keeps serving', async () => {
    const panel = await Panel.open();
    await panel.messages.json((m) => m.type === 'snapshot');
    const cases: Array<[unknown, string | RegExp]> = [
      ['not json', /not valid JSON/],
      [{ type: 'launch', command: 'rm -rf /' }, /invalid panel message/],
      [{ type: 'input', id: 'x' }, /\bdata: /],
      [{ type: 'resize', id: 'x', cols: 0, rows: 10 }, /\bcols: /],
      [{ type: 'create', requestId: 'r'.repeat(65) }, /\brequestId: /],
      [[1, 2, 3], /invalid panel message/],
      [{ type: 'input', id: 'no-such', data: 'x' }, /no such session|no_such_session|no-such/],
      [{ type: 'attach', id: 'no-such', cursor: 0 }, /no such session|no-such/],
    ];
    for (const [frame, expected] of cases) {
      const from = panel.messages.all.length;
      panel.send(frame);
      const reply = await panel.messages.json((m) => m.type === 'error', from);
      expect(reply.message).toMatch(expected);
    }
    let from = panel.messages.all.length;
    // Invalid UTF-8 in a text frame: an error reply, and the socket stays open.
    panel.ws.send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), { binary: false });
    expect((await panel.messages.json((m) => m.type === 'error', from)).code).toBe('invalid_message');
    from = panel.messages.all.length;
    panel.ws.send('['.repeat(100_000) + ']'.repeat(100_000));
    expect((await panel.messages.json((m) => m.type === 'error', from)).code).toBe('invalid_message');
    from = panel.messages.all.length;
    panel.ws.send(Buffer.from([0xff, 0xfe, 0x00]), { binary: true });
    expect((await panel.messages.json((m) => m.type === 'error', from)).code).toBe('invalid_message');
    const notFound = await panel.messages.json((m) => m.type === 'error' && /no-such/.test(m.message));
    expect(notFound.code).toBe('no_such_session');
    // Still serving: a create after all that works.
    const info = await panel.create('after-errors');
    await service.remove(info.id);
    panel.ws.close();
  });

  it('drops a resize that raced its session\'s exit without an error: the panel fits a fast command\'s tab as it exits', async () => {
    const panel = await Panel.open();
    await panel.messages.json((m) => m.type === 'snapshot');
    const info = service.create({ source: 'agent', command: 'true' });
    await panel.messages.json((m) => m.type === 'event' && m.event.type === 'pty.exited' && m.event.id === info.id);
    const from = panel.messages.all.length;
    panel.send({ type: 'resize', id: info.id, cols: 90, rows: 20 });
    // A sentinel after it: the first error to come back must be the sentinel's.
    panel.send({ type: 'input', id: 'sentinel-no-such', data: 'x' });
    const reply = await panel.messages.json((m) => m.type === 'error', from);
    expect(reply.message).toMatch(/sentinel-no-such/);
    await service.remove(info.id);
    panel.ws.close();
  });

  it('never stalls the PTY for a slow viewer: resyncs it with the skipped count, and Ctrl-C into `yes` brings the prompt back', async () => {
    const panel = await Panel.open();
    const info = await panel.create('flood');
    panel.send({ type: 'attach', id: info.id, cursor: null });
    await panel.messages.json((m) => m.type === 'resync' && m.id === info.id);
    panel.send({ type: 'input', id: info.id, data: 'yes\r' });
    await panel.until(info.id, (t) => t.includes('y\r\ny\r\ny'));

    // Stop reading: the server's socket backs up, yet the shell keeps producing.
    panel.ws.pause();
    const start = service.read(info.id, { maxBytes: 1 }).end;
    await new Promise<void>((resolve) => {
      const off = service.on('pty.data', (e) => {
        if (e.id === info.id && e.cursor - start > 8 * 1024 * 1024) {
          off();
          resolve();
        }
      });
    });
    panel.ws.resume();
    await panel.until(info.id, () => panel.entry(info.id).skipped > 0);

    panel.send({ type: 'input', id: info.id, data: '\x03' });
    panel.send({ type: 'input', id: info.id, data: 'echo back-$((3*3))\r' });
    await panel.until(info.id, (t) => t.includes('back-9'));
    await service.remove(info.id);
    panel.ws.close();
  });

  it('a viewer that never acknowledges gets one window of output, then nothing until it is resynced, then one window again', async () => {
    const panel = await Panel.open();
    await panel.messages.json((m) => m.type === 'snapshot');
    panel.acking = false;
    const info = service.create({ source: 'agent', command: 'yes', args: ['no-acks'] });
    panel.send({ type: 'attach', id: info.id, cursor: 0 });
    const entry = panel.entry(info.id);
    // Resynced once the log's head is LAG_LIMIT past what it acknowledged (nothing).
    await panel.until(info.id, () => entry.resyncs === 1);
    // Taken when the resync arrived: frames after it may have been handled in the same tick.
    const beforeResync = entry.frameBytesAtResyncs[0]!;
    expect(beforeResync).toBe(ACK_WINDOW);
    const resumedAt = entry.resyncCursors[0]!;
    expect(resumedAt).toBeGreaterThan(LAG_LIMIT);
    expect(entry.skipped, 'the resync counts every byte it was never sent').toBe(resumedAt - ACK_WINDOW);

    // The flood runs on (the PTY is not paused), several lag limits past the resync.
    await new Promise<void>((resolve) => {
      const off = service.on('pty.data', (e) => {
        if (e.id === info.id && e.cursor - resumedAt > 4 * LAG_LIMIT) {
          off();
          resolve();
        }
      });
    });
    // The window after the resync arrives (its pump may take a turn of the loop behind the flood's reads),
    // then a round trip: everything the server sent before its reply has arrived, and it is no more.
    await panel.until(info.id, () => entry.frameBytes - beforeResync >= ACK_WINDOW);
    const from = panel.messages.all.length;
    panel.send({ type: 'resize', id: 'no-such-session', cols: 80, rows: 24 });
    await panel.messages.json((m) => m.type === 'error', from);
    expect(entry.frameBytes - beforeResync).toBe(ACK_WINDOW);
    expect(entry.resyncs, 'resynced once, not on a loop').toBe(1);
    await service.remove(info.id);
    panel.ws.close();
  });

  it('a viewer that acknowledges gets output many windows long in order, without loss or repetition', async () => {
    const panel = await Panel.open();
    await panel.messages.json((m) => m.type === 'snapshot');
    // About 6 windows of output, under the lag limit, so nothing may be skipped.
    const count = 120_000;
    const info = service.create({ source: 'agent', command: 'seq', args: ['1', String(count)] });
    panel.send({ type: 'attach', id: info.id, cursor: 0 });
    const expected = Array.from({ length: count }, (_, i) => String(i + 1)).join('\r\n') + '\r\n';
    expect(expected.length).toBeGreaterThan(5 * ACK_WINDOW);
    expect(expected.length).toBeLessThan(LAG_LIMIT);
    const entry = panel.entry(info.id);
    await panel.until(info.id, (t) => t.length >= expected.length);
    expect(entry.text).toBe(expected);
    expect(entry.skipped).toBe(0);
    expect(entry.resyncs).toBe(0);
    await service.remove(info.id);
    panel.ws.close();
  });
});
