import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { decodeOutputFrame, PANEL_WS_PATH } from '@ptydeck/contract';
import { createPtyService } from '../pty/pty-service.js';
import type { PtyService } from '../pty/types.js';
import { AgentRegistry } from './agent-registry.js';
import { SessionFacts } from '../facts/index.js';
import { PanelConnection } from './panel-connection.js';
import { ScreenService } from '../screen/screen-service.js';
import { MessageQueue } from '../testing/http.js';
import { fileTempDir } from '../testing/isolated-env.js';

/** A mirror whose screen cannot be produced, as when its terminal fails to parse or serialize. */
const failingMirrors = { snapshot: () => Promise.reject(new Error('the mirror broke')) };

let service: PtyService | undefined;
let server: Server | undefined;
let wss: WebSocketServer | undefined;
let client: WebSocket | undefined;
let screens: ScreenService | undefined;

afterEach(async () => {
  client?.terminate();
  screens?.dispose();
  screens = undefined;
  wss?.close();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  await service?.dispose();
});

/** A PanelConnection over a real socket, with the mirrors and reporter it is given. */
async function connect(svc: PtyService, reports: string[], screens: Pick<ScreenService, 'snapshot'> = failingMirrors): Promise<{ ws: WebSocket; messages: MessageQueue }> {
  server = createServer();
  wss = new WebSocketServer({ server, path: PANEL_WS_PATH });
  wss.on('connection', (ws) => {
    const panel = new PanelConnection(ws, {
      service: svc,
      facts: new SessionFacts(svc),
      agents: new AgentRegistry(),
      screens: screens as ScreenService,
      instance: 'test',
      reportError: (error, context) => reports.push(`${context}: ${(error as Error).message}`),
    });
    ws.on('close', () => panel.dispose());
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const ws = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}${PANEL_WS_PATH}`);
  client = ws;
  const messages = new MessageQueue(ws);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  return { ws, messages };
}

function exited(svc: PtyService, id: string): Promise<void> {
  return new Promise((resolve) => {
    if (svc.get(id)?.status === 'exited') return resolve();
    const off = svc.on('pty.exited', (e) => {
      if (e.id === id) {
        off();
        resolve();
      }
    });
  });
}

/** Output frames for `id` until their text contains `text`, acknowledging each as a terminal would. */
async function outputUntil(ws: WebSocket, messages: MessageQueue, id: string, text: string, from = 0): Promise<string> {
  let received = '';
  await messages.waitFor((m) => {
    if (!m.binary) return undefined;
    const frame = decodeOutputFrame(new Uint8Array(m.data));
    if (frame.id !== id) return undefined;
    received += Buffer.from(frame.data).toString('utf8');
    ws.send(JSON.stringify({ type: 'ack', id, cursor: frame.cursor + frame.data.length }));
    return received.includes(text) ? true : undefined;
  }, from);
  return received;
}

const home = () => fileTempDir('ptydeck-home-');

/** The first resync message, and the index of the message after it (output frames may already be there). */
async function nextResync(messages: MessageQueue): Promise<{ resync: any; after: number }> {
  return messages.waitFor((m) => {
    if (m.binary) return undefined;
    const value = JSON.parse(m.data.toString('utf8'));
    return value.type === 'resync' ? { resync: value, after: messages.all.indexOf(m) + 1 } : undefined;
  });
}

describe('a resync whose screen cannot be restored', () => {
  it('replays the log to a new viewer instead of leaving it resyncing, and reports the failure once', async () => {
    service = createPtyService({ env: { ...process.env, HOME: home() } });
    const reports: string[] = [];
    const { ws, messages } = await connect(service, reports);
    const info = service.create({ source: 'user', command: 'bash', args: ['--norc', '--noprofile'], cols: 40, rows: 10 });
    service.write(info.id, 'echo before-$((1+1))\r');
    ws.send(JSON.stringify({ type: 'attach', id: info.id, cursor: null }));
    const { resync, after: from } = await nextResync(messages);
    expect(resync).toMatchObject({ id: info.id, cursor: 0, skipped: 0, screen: '' });
    await outputUntil(ws, messages, info.id, 'before-2', from);
    // Live again: new output streams.
    service.write(info.id, 'echo after-$((2+3))\r');
    await outputUntil(ws, messages, info.id, 'after-5', from);
    expect(reports).toEqual([`restoring the screen of session ${info.id} failed; replaying its log instead: the mirror broke`]);
  });

  it('resumes a viewer whose cursor was trimmed from the oldest byte kept, saying what it skipped', async () => {
    service = createPtyService({ env: { ...process.env, HOME: home() }, sessionLogBytes: 4096 });
    const reports: string[] = [];
    const { ws, messages } = await connect(service, reports);
    const info = service.create({
      source: 'user',
      command: 'bash',
      args: ['--norc', '--noprofile', '-c', 'for i in $(seq 1 400); do echo "line $i of the flood"; done; echo tail-end'],
    });
    await exited(service, info.id);
    const oldest = service.read(info.id, { maxBytes: 1 }).cursor;
    expect(oldest).toBeGreaterThan(0);
    ws.send(JSON.stringify({ type: 'attach', id: info.id, cursor: 10 }));
    const { resync, after } = await nextResync(messages);
    expect(resync).toMatchObject({ id: info.id, cursor: oldest, skipped: oldest - 10, screen: '' });
    const replayed = await outputUntil(ws, messages, info.id, 'tail-end', after);
    expect(replayed).not.toContain('line 1 of the flood');
    expect(reports).toHaveLength(1);
  });

  it('says nothing when the screens were disposed (the host stopping) while the restore was in flight, and still replays', async () => {
    service = createPtyService({ env: { ...process.env, HOME: home() } });
    const real = (screens = new ScreenService(service));
    // The host's shutdown disposes the screens (and their worker) while a viewer's screen is being made.
    const stopping = {
      snapshot: (id: string) => {
        const made = real.snapshot(id);
        real.dispose();
        return made;
      },
    };
    const reports: string[] = [];
    const { ws, messages } = await connect(service, reports, stopping);
    const info = service.create({ source: 'user', command: 'bash', args: ['--norc', '--noprofile'], cols: 40, rows: 10 });
    service.write(info.id, 'echo before-$((1+1))\r');
    ws.send(JSON.stringify({ type: 'attach', id: info.id, cursor: null }));
    const { after } = await nextResync(messages);
    await outputUntil(ws, messages, info.id, 'before-2', after);
    expect(reports).toEqual([]);
  });
});
