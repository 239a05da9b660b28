import { describe, expect, it } from 'vitest';
import { encodeOutputFrame, type PanelClientMessage, type SessionInfo } from '@ptydeck/contract';
import { PanelClient, type ConnectionStatus, type Timers } from './panel-client.js';
import type { SocketLike } from './socket.js';

class FakeSocket implements SocketLike {
  sent: PanelClientMessage[] = [];
  /** `hosts.watch` requests, counted apart: every connection sends one after its snapshot. */
  hostWatches = 0;
  /** Every message's type, in the order sent. */
  order: string[] = [];
  closed = false;
  private messageListener: (data: unknown) => void = () => {};
  private closeListener: (event: { code: number; reason: string }) => void = () => {};
  constructor(readonly url: string, readonly protocols: string[]) {}
  send(data: string) {
    const message = JSON.parse(data) as PanelClientMessage;
    this.order.push(message.type);
    if (message.type === 'hosts.watch') this.hostWatches += 1;
    else this.sent.push(message);
  }
  close() { this.closed = true; }
  onOpen() {}
  onMessage(listener: (data: unknown) => void) { this.messageListener = listener; return () => { this.messageListener = () => {}; }; }
  onClose(listener: (event: { code: number; reason: string }) => void) { this.closeListener = listener; return () => { this.closeListener = () => {}; }; }
  // ---- driven by the test ----
  receive(message: unknown) { this.messageListener(typeof message === 'string' || message instanceof Uint8Array ? message : JSON.stringify(message)); }
  output(id: string, cursor: number, text: string) { this.messageListener(encodeOutputFrame({ id, cursor }, new TextEncoder().encode(text))); }
  drop(reason = 'gone') { this.closeListener({ code: 1006, reason }); }
}

class FakeTimers implements Timers {
  pending: { callback: () => void; ms: number }[] = [];
  set(callback: () => void, ms: number) { const entry = { callback, ms }; this.pending.push(entry); return entry; }
  clear(handle: unknown) { this.pending = this.pending.filter((entry) => entry !== handle); }
  runNext() { const entry = this.pending.shift(); if (!entry) throw new Error('no timer pending'); entry.callback(); return entry.ms; }
}

const session = (id: string, overrides: Partial<SessionInfo> = {}): SessionInfo => ({
  id, source: 'agent', owner: 'c1', ownerName: 'claude-code', title: 'bash', command: 'bash', args: [], cwd: '/',
  pid: 1, cols: 80, rows: 24, status: 'running', exitCode: null, signal: null, createdAt: 1, exitedAt: null, ...overrides,
});

async function setup() {
  const sockets: FakeSocket[] = [];
  const timers = new FakeTimers();
  const client = new PanelClient({
    endpoint: async () => ({ url: 'ws://127.0.0.1:1/panel', protocols: ['ptydeck.token.t'] }),
    openSocket: (url, protocols) => { const socket = new FakeSocket(url, protocols); sockets.push(socket); return socket; },
    timers,
    random: () => 0,
    backoff: { initialMs: 100, maxMs: 400, factor: 2, jitter: 0 },
  });
  const statuses: ConnectionStatus['state'][] = [];
  client.onStatus((status) => statuses.push(status.state));
  const output: string[] = [];
  client.onOutput(({ id, data }) => output.push(`${id}:${new TextDecoder().decode(data)}`));
  client.start();
  await flush();
  return { client, sockets, timers, statuses, output, latest: () => sockets[sockets.length - 1]! };
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('PanelClient', () => {
  it('opens the endpoint it is given and sends nothing before the snapshot', async () => {
    const { latest, client } = await setup();
    expect(latest().url).toBe('ws://127.0.0.1:1/panel');
    expect(latest().protocols).toEqual(['ptydeck.token.t']);
    client.attach('a');
    expect(client.input('a', 'x')).toBe(false);
    expect(latest().sent).toEqual([]);
    latest().receive({ type: 'snapshot', sessions: [session('a')], agents: [], instance: 'i1' });
    expect(latest().sent).toEqual([{ type: 'attach', id: 'a', cursor: null }]);
    expect(client.status.state).toBe('connected');
  });

  it('asks for the remote hosts on every connection, after its snapshot, and hands on what the core says of them', async () => {
    const { latest, timers, client } = await setup();
    const seen: string[][] = [];
    client.onHosts((hosts) => seen.push(hosts.map((host) => `${host.name}:${host.state}`)));
    expect(latest().hostWatches).toBe(0);
    latest().receive({ type: 'snapshot', sessions: [], agents: [], instance: 'i1' });
    expect(latest().hostWatches).toBe(1);
    latest().receive({ type: 'hosts', hosts: [{ name: 'box', destination: 'me@box', state: 'reconnecting', detail: 'reconnecting to box' }] });
    expect(seen).toEqual([['box:reconnecting']]);
    latest().drop();
    timers.runNext();
    await flush();
    latest().receive({ type: 'snapshot', sessions: [], agents: [], instance: 'i1' });
    expect(latest().hostWatches).toBe(1);
    expect(client.create(undefined, 'box')).toBe('create-1');
    expect(latest().sent.at(-1)).toEqual({ type: 'create', requestId: 'create-1', host: 'box' });
  });

  it('resumes every attached session from its last applied cursor after a drop', async () => {
    const { latest, timers, client, output, sockets, statuses } = await setup();
    latest().receive({ type: 'snapshot', sessions: [session('a'), session('b')], agents: [], instance: 'i1' });
    client.attach('a');
    client.attach('b');
    latest().output('a', 0, 'hello');
    latest().output('b', 0, 'xy');
    latest().drop();
    expect(statuses.at(-1)).toBe('disconnected');
    expect(timers.runNext()).toBe(100);
    await flush();
    expect(sockets).toHaveLength(2);
    latest().receive({ type: 'snapshot', sessions: [session('a'), session('b')], agents: [], instance: 'i1' });
    expect(latest().sent).toEqual([
      { type: 'attach', id: 'a', cursor: 5 },
      { type: 'attach', id: 'b', cursor: 2 },
    ]);
    // Overlapping replay after the resume is trimmed, so nothing is written twice.
    latest().output('a', 3, 'lo world');
    expect(output).toEqual(['a:hello', 'b:xy', 'a: world']);
    // The next resume starts after the trimmed replay.
    latest().drop();
    expect(timers.runNext()).toBe(100);
    await flush();
    latest().receive({ type: 'snapshot', sessions: [session('a'), session('b')], agents: [], instance: 'i1' });
    expect(latest().sent).toEqual([
      { type: 'attach', id: 'a', cursor: 11 },
      { type: 'attach', id: 'b', cursor: 2 },
    ]);
  });

  it("resumes a remote host's session from its cursor after a drop, though this machine's snapshot does not list it: hosts.watch first, so the core holds the attach for the remote", async () => {
    const { latest, timers, client, output } = await setup();
    latest().receive({ type: 'snapshot', sessions: [session('a')], agents: [], instance: 'i1' });
    latest().receive({ type: 'event', event: { type: 'pty.created', info: session('r', { host: 'box' }) } });
    client.attach('a');
    client.attach('r');
    latest().output('a', 0, 'here');
    latest().output('r', 0, 'there');
    latest().drop();
    expect(timers.runNext()).toBe(100);
    await flush();
    latest().receive({ type: 'snapshot', sessions: [session('a')], agents: [], instance: 'i1' });
    expect(latest().order).toEqual(['hosts.watch', 'attach', 'attach']);
    expect(latest().sent).toEqual([
      { type: 'attach', id: 'a', cursor: 4 },
      { type: 'attach', id: 'r', cursor: 5 },
    ]);
    latest().output('r', 5, '!');
    expect(output).toEqual(['a:here', 'r:there', 'r:!']);
    // Gone from its remote meanwhile: the core says so, and the next reconnect does not ask for it.
    latest().receive({ type: 'event', event: { type: 'pty.removed', id: 'r' } });
    latest().drop();
    expect(timers.runNext()).toBe(100);
    await flush();
    latest().receive({ type: 'snapshot', sessions: [session('a')], agents: [], instance: 'i1' });
    expect(latest().sent).toEqual([{ type: 'attach', id: 'a', cursor: 4 }]);
  });

  it('backs off exponentially while the server is away and resets after a snapshot', async () => {
    const { latest, timers } = await setup();
    const delays: number[] = [];
    for (let i = 0; i < 4; i++) {
      latest().drop();
      delays.push(timers.runNext());
      await flush();
    }
    expect(delays).toEqual([100, 200, 400, 400]);
    latest().receive({ type: 'snapshot', sessions: [], agents: [], instance: 'i1' });
    latest().drop();
    expect(timers.runNext()).toBe(100);
  });

  it('drops cursors and re-attaches without one when the server instance changes', async () => {
    const { latest, timers, client } = await setup();
    const snapshots: boolean[] = [];
    client.onSnapshot((snapshot) => snapshots.push(snapshot.instanceChanged));
    latest().receive({ type: 'snapshot', sessions: [session('a'), session('gone')], agents: [], instance: 'i1' });
    client.attach('a');
    client.attach('gone');
    latest().output('a', 0, 'abc');
    latest().drop();
    timers.runNext();
    await flush();
    latest().receive({ type: 'snapshot', sessions: [session('a')], agents: [], instance: 'i2' });
    expect(latest().sent).toEqual([{ type: 'attach', id: 'a', cursor: null }]);
    expect(snapshots).toEqual([false, true]);
  });

  it('takes the cursor of a resync and reports the screen to restore', async () => {
    const { latest, client, output } = await setup();
    const resyncs: string[] = [];
    client.onResync(({ id, screen, skipped }) => resyncs.push(`${id}:${screen}:${skipped}`));
    latest().receive({ type: 'snapshot', sessions: [session('a')], agents: [], instance: 'i1' });
    client.attach('a');
    latest().receive({ type: 'resync', id: 'a', cursor: 500, skipped: 400, screen: '$ ' });
    latest().output('a', 450, 'old');
    latest().output('a', 500, 'new');
    expect(resyncs).toEqual(['a:$ :400']);
    expect(output).toEqual(['a:new']);
  });

  it('reports invalid server messages as errors and keeps going', async () => {
    const { latest, client } = await setup();
    const errors: string[] = [];
    client.onError((error) => errors.push(error.code));
    latest().receive('not json');
    latest().receive({ type: 'snapshot', sessions: [{ id: 'broken' }], agents: [], instance: 'i1' });
    latest().receive(new Uint8Array([9]));
    latest().receive({ type: 'snapshot', sessions: [], agents: [], instance: 'i1' });
    expect(errors).toEqual(['invalid_server_message', 'invalid_server_message', 'invalid_server_message']);
    expect(client.status.state).toBe('connected');
  });

  it('hands on each agent arrival and departure, and refuses a malformed one', async () => {
    const { latest, client } = await setup();
    const heard: string[] = [];
    const errors: string[] = [];
    client.onAgentAdded((agent) => heard.push(`+${agent.id}:${agent.name}`));
    client.onAgentRemoved((id) => heard.push(`-${id}`));
    client.onError((error) => errors.push(error.code));
    latest().receive({ type: 'snapshot', sessions: [], agents: [], instance: 'i1' });
    const agent = { id: 'c1', name: 'claude-code', version: '1.0', transport: 'http', connectedAt: 1 };
    latest().receive({ type: 'agent.added', agent });
    latest().receive({ type: 'agent.added', agent: { id: 'c2' } });
    latest().receive({ type: 'agent.removed', id: 'c1' });
    latest().receive({ type: 'agent.removed' });
    expect(heard).toEqual(['+c1:claude-code', '-c1']);
    expect(errors).toEqual(['invalid_server_message', 'invalid_server_message']);
  });

  it('stops following a removed session', async () => {
    const { latest, client, output } = await setup();
    latest().receive({ type: 'snapshot', sessions: [session('a')], agents: [], instance: 'i1' });
    client.attach('a');
    latest().receive({ type: 'event', event: { type: 'pty.removed', id: 'a' } });
    latest().output('a', 0, 'late');
    expect(output).toEqual([]);
  });

  it('splits a paste larger than one input frame allows', async () => {
    const { latest, client } = await setup();
    latest().receive({ type: 'snapshot', sessions: [session('a')], agents: [], instance: 'i1' });
    client.input('a', 'x'.repeat(1024 * 1024 + 10));
    const inputs = latest().sent.filter((message) => message.type === 'input');
    expect(inputs.map((message) => message.type === 'input' && message.data.length)).toEqual([1024 * 1024, 10]);
  });

  it('rejects an invalid outgoing message before it reaches the socket', async () => {
    const { latest, client } = await setup();
    latest().receive({ type: 'snapshot', sessions: [], agents: [], instance: 'i1' });
    expect(() => client.resize('a', 0, 0)).toThrow();
    expect(latest().sent).toEqual([]);
  });

  it('disposes cleanly: closes the socket, cancels retries, stops emitting', async () => {
    const { latest, timers, client, statuses, output } = await setup();
    latest().drop();
    expect(timers.pending).toHaveLength(1);
    client.dispose();
    expect(timers.pending).toEqual([]);
    expect(statuses.at(-1)).toBe('disposed');
    expect(client.status.state).toBe('disposed');
    client.dispose();

    const second = await setup();
    second.latest().receive({ type: 'snapshot', sessions: [session('a')], agents: [], instance: 'i1' });
    second.client.attach('a');
    const socket = second.latest();
    second.client.dispose();
    expect(socket.closed).toBe(true);
    socket.output('a', 0, 'after');
    socket.drop();
    expect(second.output).toEqual([]);
    expect(second.timers.pending).toEqual([]);
    expect(output).toEqual([]);
  });

  it('passes the cursor after each output and resync on, and sends acks only while attached and online', async () => {
    const { latest, timers, client } = await setup();
    const nexts: number[] = [];
    client.onOutput(({ next }) => nexts.push(next));
    const cursors: number[] = [];
    client.onResync(({ cursor }) => cursors.push(cursor));
    client.ack('a', 5);
    latest().receive({ type: 'snapshot', sessions: [session('a')], agents: [], instance: 'i1' });
    client.ack('a', 5);
    expect(latest().sent).toEqual([]);
    client.attach('a');
    latest().receive({ type: 'resync', id: 'a', cursor: 100, skipped: 0, screen: 'screen' });
    latest().output('a', 100, 'abc');
    // A frame overlapping what was applied is trimmed, and its cursor still ends where the frame does.
    latest().output('a', 101, 'bcde');
    expect(cursors).toEqual([100]);
    expect(nexts).toEqual([103, 105]);
    client.ack('a', 105);
    expect(latest().sent.at(-1)).toEqual({ type: 'ack', id: 'a', cursor: 105 });
    latest().drop();
    timers.runNext();
    await flush();
    client.ack('a', 105);
    expect(latest().sent).toEqual([]);
  });

  it('reports a connection attempt that fails unexpectedly and retries it, instead of staying connecting', async () => {
    const reports: string[] = [];
    const sockets: FakeSocket[] = [];
    const timers = new FakeTimers();
    const client = new PanelClient({
      endpoint: async () => ({ url: 'ws://127.0.0.1:1/panel', protocols: [] }),
      openSocket: (url, protocols) => {
        const socket = new FakeSocket(url, protocols);
        sockets.push(socket);
        // The first socket breaks while the client wires it up: a failure no branch expects.
        if (sockets.length === 1) socket.onClose = () => { throw new Error('socket broke'); };
        return socket;
      },
      timers,
      random: () => 0,
      backoff: { initialMs: 100, maxMs: 400, factor: 2, jitter: 0 },
      reportError: (error, context) => reports.push(`${context}: ${(error as Error).message}`),
    });
    client.start();
    await flush();
    expect(reports).toEqual(['connecting the panel socket failed: socket broke']);
    expect(client.status).toMatchObject({ state: 'disconnected', retryInMs: 100 });
    timers.runNext();
    await flush();
    sockets[1]!.receive({ type: 'snapshot', sessions: [], agents: [], instance: 'i1' });
    expect(client.status.state).toBe('connected');
    client.dispose();
  });

  it('names why it is not connected when a check of the page\'s access can tell, and forgets it once connected', async () => {
    const sockets: FakeSocket[] = [];
    const timers = new FakeTimers();
    let access: 'allowed' | 'unauthorized' | 'unreachable' = 'unauthorized';
    const client = new PanelClient({
      endpoint: async () => ({ url: 'ws://127.0.0.1:1/panel', protocols: [] }),
      openSocket: (url, protocols) => { const socket = new FakeSocket(url, protocols); sockets.push(socket); return socket; },
      timers,
      random: () => 0,
      checkAccess: async () => access,
    });
    const causes: string[] = [];
    client.onStatus((status) => causes.push(`${status.state}:${'cause' in status ? status.cause : '-'}`));
    client.start();
    await flush();
    sockets.at(-1)!.drop('handshake refused');
    await flush();
    expect(client.status).toMatchObject({ state: 'disconnected', cause: 'unauthorized' });
    access = 'unreachable';
    timers.runNext();
    await flush();
    // The next attempt still carries what was last found.
    expect(causes).toContain('connecting:unauthorized');
    sockets.at(-1)!.drop();
    await flush();
    expect(client.status).toMatchObject({ state: 'disconnected', cause: 'unreachable' });
    access = 'allowed';
    timers.runNext();
    await flush();
    sockets.at(-1)!.receive({ type: 'snapshot', instance: 'i', sessions: [], agents: [] });
    expect(client.status).toEqual({ state: 'connected', instance: 'i' });
    sockets.at(-1)!.drop();
    expect(client.status).toMatchObject({ state: 'disconnected', cause: 'unknown' });
    client.dispose();
  });
});

describe('PanelClient chats', () => {
  const chatInfo = { id: 'c1', agentName: 'demo', owner: 'chat:c1', cwd: '/w', state: 'starting' as const, error: null, createdAt: 1 };

  it('sends chat messages only when connected, and hands on every chat message from the core', async () => {
    const { latest, client } = await setup();
    expect(client.openChat('demo')).toBeNull();
    expect(client.sendChat({ type: 'chat.prompt', chatId: 'c1', text: 'hi' })).toBe(false);
    const received: string[] = [];
    client.onChat((message) => received.push(message.type));
    latest().receive({ type: 'snapshot', sessions: [], agents: [], instance: 'i1' });
    latest().receive({ type: 'chat.agents', agents: [], configPath: '/c/agents.json', configError: null });
    latest().receive({ type: 'chat.list', chats: [] });
    const requestId = client.openChat('demo', '/w');
    expect(requestId).not.toBeNull();
    expect(client.sendChat({ type: 'chat.prompt', chatId: 'c1', text: 'hi' })).toBe(true);
    expect(latest().sent).toEqual([
      { type: 'chat.open', requestId, agent: 'demo', cwd: '/w' },
      { type: 'chat.prompt', chatId: 'c1', text: 'hi' },
    ]);
    latest().receive({ type: 'chat.opened', requestId, info: chatInfo });
    latest().receive({ type: 'chat.event', chatId: 'c1', event: { type: 'message', role: 'agent', text: 'x' } });
    latest().receive({ type: 'chat.closed', chatId: 'c1' });
    expect(received).toEqual(['chat.agents', 'chat.list', 'chat.opened', 'chat.event', 'chat.closed']);
  });

  it('routes the error answering its own chat.open to onChatOpenFailed, other errors to onError', async () => {
    const { latest, client } = await setup();
    latest().receive({ type: 'snapshot', sessions: [], agents: [], instance: 'i1' });
    const failed: string[] = [];
    const errors: string[] = [];
    client.onChatOpenFailed(({ requestId, message }) => failed.push(`${requestId}:${message}`));
    client.onError((error) => errors.push(error.message));
    const requestId = client.openChat('nope')!;
    latest().receive({ type: 'error', code: 'no_such_agent', message: 'no agent named nope', requestId });
    latest().receive({ type: 'error', code: 'x', message: 'other', requestId: 'create-99' });
    expect(failed).toEqual([`${requestId}:no agent named nope`]);
    expect(errors).toEqual(['other']);
  });

  it('fails a chat.open still unanswered when the connection drops', async () => {
    const { latest, client } = await setup();
    latest().receive({ type: 'snapshot', sessions: [], agents: [], instance: 'i1' });
    const failed: string[] = [];
    client.onChatOpenFailed(({ requestId }) => failed.push(requestId));
    const answered = client.openChat('demo')!;
    const lost = client.openChat('demo')!;
    latest().receive({ type: 'chat.opened', requestId: answered, info: chatInfo });
    latest().drop();
    expect(failed).toEqual([lost]);
  });
});

describe('PanelClient refresh', () => {
  it('asks an attached session for its screen again, or on the next connect when offline', async () => {
    const { latest, client, timers } = await setup();
    latest().receive({ type: 'snapshot', sessions: [session('a')], agents: [], instance: 'i1' });
    client.attach('a');
    latest().output('a', 0, 'hello');
    client.refresh('a');
    expect(latest().sent.at(-1)).toEqual({ type: 'attach', id: 'a', cursor: null });
    latest().drop();
    client.refresh('a');
    timers.runNext();
    await flush();
    latest().receive({ type: 'snapshot', sessions: [session('a')], agents: [], instance: 'i1' });
    expect(latest().sent).toEqual([{ type: 'attach', id: 'a', cursor: null }]);
  });
});

describe('PanelClient processes', () => {
  it('asks for and ends processes only when connected, and hands on every process message from the core', async () => {
    const { client, latest } = await setup();
    expect(client.queryProcesses('a')).toBeNull();
    expect(client.endProcesses('a', [7])).toBeNull();
    latest().receive({ type: 'snapshot', sessions: [session('a')], agents: [], instance: 'i1' });
    const query = client.queryProcesses('a');
    const end = client.endProcesses('a', [7, 8]);
    // A dead host's chat's leftovers are named as a chat's: its id is no session's.
    const chatEnd = client.endProcesses('chat-1', [9], 'chat');
    expect(latest().sent).toEqual([
      { type: 'processes.query', requestId: query, id: 'a' },
      { type: 'processes.end', requestId: end, id: 'a', pids: [7, 8] },
      { type: 'processes.end', requestId: chatEnd, id: 'chat-1', pids: [9], kind: 'chat' },
    ]);
    const seen: string[] = [];
    client.onProcesses((message) => seen.push(message.type));
    latest().receive({ type: 'processes.list', requestId: query, id: 'a', processes: [{ pid: 7, command: 'sleep 9', startedAt: 1 }] });
    latest().receive({ type: 'processes.ended', requestId: end, id: 'a', ended: [{ pid: 7, command: 'sleep 9' }], notEnded: [], refused: [8] });
    latest().receive({ type: 'processes.leftovers', sessions: [] });
    expect(seen).toEqual(['processes.list', 'processes.ended', 'processes.leftovers']);
  });
});
