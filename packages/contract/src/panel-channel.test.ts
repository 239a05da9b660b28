import { describe, expect, it } from 'vitest';
import { PanelChannel, type PanelSocket, type SocketClosed } from './panel-channel.js';
import type { PanelClientMessage, PanelServerMessage } from './panel-protocol.js';
import type { IncomingPanelMessage } from './panel-wire.js';
import type { SessionInfo } from './session.js';

// The channel as the CLI runs it (the app's configuration is covered through app/connection/panel-client.test.ts):
// its own reader, plain JSON out, a snapshot its opener read, no hosts watched, unread messages left out.

class FakeSocket implements PanelSocket<IncomingPanelMessage> {
  sent: PanelClientMessage[] = [];
  private readonly messages = new Set<(data: IncomingPanelMessage) => void>();
  private readonly closes = new Set<(event: SocketClosed) => void>();
  send(text: string) { this.sent.push(JSON.parse(text) as PanelClientMessage); }
  onMessage(listener: (data: IncomingPanelMessage) => void) { this.messages.add(listener); return () => { this.messages.delete(listener); }; }
  onClose(listener: (event: SocketClosed) => void) { this.closes.add(listener); return () => { this.closes.delete(listener); }; }
  get listeners() { return this.messages.size + this.closes.size; }
  control(message: PanelServerMessage) { for (const listener of this.messages) listener({ kind: 'control', message }); }
  output(id: string, cursor: number, text: string) { for (const listener of this.messages) listener({ kind: 'output', frame: { id, cursor, data: new TextEncoder().encode(text) } }); }
  invalid() { for (const listener of this.messages) listener({ kind: 'invalid', reason: 'not read here' }); }
  drop() { for (const listener of this.closes) listener({ code: 1006, reason: 'gone' }); }
}

const info = (id: string): SessionInfo => ({
  id, source: 'user', owner: null, ownerName: null, title: 'bash', command: 'bash', args: [], cwd: '/',
  cols: 80, rows: 24, pid: 1, status: 'running', exitCode: null, signal: null, createdAt: 0, exitedAt: null, readOnly: false,
} as unknown as SessionInfo);

const snapshot = (ids: string[]): Extract<PanelServerMessage, { type: 'snapshot' }> => ({ type: 'snapshot', instance: 'i1', sessions: ids.map(info), agents: [] });

function channel(reportInvalid = false) {
  return new PanelChannel<IncomingPanelMessage>({ read: (data) => data, encode: (message) => JSON.stringify(message), reportInvalid });
}

/**
 * A channel on a socket, following s1 the way `follow` makes it, whose resync of screen "abc" at cursor 3 has
 * come; `seen` records the resyncs and output it hands on.
 */
function resyncedAt3(follow: (panel: PanelChannel<IncomingPanelMessage>) => void) {
  const panel = channel();
  const socket = new FakeSocket();
  panel.use(socket, snapshot(['s1']));
  follow(panel);
  const seen: string[] = [];
  panel.onResync(({ screen, cursor }) => seen.push(`screen ${screen} @${cursor}`));
  panel.onOutput(({ data, next }) => seen.push(`${new TextDecoder().decode(data)} ->${next}`));
  socket.control({ type: 'resync', id: 's1', screen: 'abc', skipped: 0, cursor: 3 });
  return { panel, socket, seen };
}

describe('the panel channel, as a CLI command runs it', () => {
  it('sends nothing before the snapshot, and with the one its opener read is ready at once, asking no hosts', () => {
    const panel = channel();
    const waiting = new FakeSocket();
    panel.use(waiting);
    expect(panel.input('s1', 'x')).toBe(false);
    panel.attach('s1');
    expect(waiting.sent).toEqual([]);
    const socket = new FakeSocket();
    panel.use(socket, snapshot(['s1']));
    expect(waiting.listeners).toBe(0);
    // The attach made offline goes out on the snapshot, with no `hosts.watch` before it.
    expect(socket.sent).toEqual([{ type: 'attach', id: 's1', cursor: null }]);
    expect(panel.input('s1', 'ls\r')).toBe(true);
    expect(socket.sent.at(-1)).toEqual({ type: 'input', id: 's1', data: 'ls\r' });
  });

  it('hands on output after a resync only beyond the screen it restored, and acks only a followed session', () => {
    const { panel, socket, seen } = resyncedAt3((panel) => panel.attach('s1'));
    socket.output('s1', 1, 'bcde');
    socket.output('s1', 5, 'f');
    socket.output('s2', 0, 'not followed');
    expect(seen).toEqual(['screen abc @3', 'de ->5', 'f ->6']);
    panel.ack('s1', 6);
    panel.ack('s2', 1);
    expect(socket.sent.filter((message) => message.type === 'ack')).toEqual([{ type: 'ack', id: 's1', cursor: 6 }]);
  });

  it('follows a session the server attached for the handshake without asking it again, and acks it', () => {
    const { panel, socket, seen } = resyncedAt3((panel) => panel.attachedByServer('s1'));
    socket.output('s1', 3, 'd');
    panel.attach('s1');
    panel.ack('s1', 4);
    expect(seen).toEqual(['screen abc @3', 'd ->4']);
    expect(socket.sent).toEqual([{ type: 'ack', id: 's1', cursor: 4 }]);
  });

  it('leaves out what its reader refuses unless asked to report it', () => {
    const quiet = channel();
    const loud = channel(true);
    const errors: string[] = [];
    for (const panel of [quiet, loud]) {
      const socket = new FakeSocket();
      panel.use(socket, snapshot([]));
      panel.onError((error) => errors.push(error.code));
      socket.invalid();
    }
    expect(errors).toEqual(['invalid_server_message']);
  });

  it('answers a request by its minted id, says when its socket closed, and lets go of every listener when disposed', () => {
    const panel = channel();
    const socket = new FakeSocket();
    panel.use(socket, snapshot(['s1']));
    const exported: string[] = [];
    const closed: SocketClosed[] = [];
    panel.onTimeline((message) => {
      if (message.type === 'timeline.exported') exported.push(`${message.requestId}: ${message.data}`);
    });
    panel.onClosed((event) => closed.push(event));
    const requestId = panel.exportRecording('s1', 'text');
    expect(socket.sent.at(-1)).toEqual({ type: 'timeline.export', requestId, id: 's1', format: 'text' });
    socket.control({ type: 'timeline.exported', requestId: requestId!, id: 's1', format: 'text', data: 'hello' });
    expect(exported).toEqual([`${requestId}: hello`]);
    socket.drop();
    expect(closed).toEqual([{ code: 1006, reason: 'gone' }]);
    expect(socket.listeners).toBe(0);
    expect(panel.exportRecording('s1', 'text')).toBeNull();
    const next = new FakeSocket();
    panel.use(next, snapshot(['s1']));
    panel.dispose();
    expect(next.listeners).toBe(0);
  });
});
