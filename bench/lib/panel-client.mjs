// A minimal panel WebSocket client: what the app does on the wire, minus the
// rendering. Output frames are decoded by hand (length prefix, JSON header)
// so the client's own cost stays small next to the server's.
import WebSocket from 'ws';
import { ACK_BATCH_BYTES, PANEL_WS_PATH, TOKEN_SUBPROTOCOL_PREFIX } from '@ptydeck/contract';
import { deferred, now, withDeadline } from './harness.mjs';
import { LeanSocket } from './lean-socket.mjs';
import { ECHO_PROGRAM, keyFor } from './raw-pty.mjs';

/**
 * The core sends each viewer a window (ACK_WINDOW) of output past its last
 * ack, so a client must ack what it consumed; as the app does (WriteFlow), in
 * batches of the same size and at most one a task: the frames of one socket
 * read are acked once, after the read, as the app acks the writes xterm.js
 * parsed in one task.
 */
const ACK_BYTES = ACK_BATCH_BYTES;

export class PanelClient {
  /**
   * @param {string} url http://127.0.0.1:PORT of the server
   * @param {{ lean?: boolean }} options `lean`: read through LeanSocket (one reused read buffer) instead of `ws`
   */
  static async connect(url, token, { lean = false } = {}) {
    const wsUrl = `${url.replace(/^http/, 'ws')}${PANEL_WS_PATH}`;
    const protocols = [`${TOKEN_SUBPROTOCOL_PREFIX}${token}`];
    const ws = lean ? new LeanSocket(wsUrl, protocols, { headers: { Origin: url } }) : new WebSocket(wsUrl, protocols, { headers: { Origin: url }, perMessageDeflate: false });
    const client = new PanelClient(ws);
    await withDeadline(client.snapshot.promise, 15_000, 'panel snapshot');
    return client;
  }

  constructor(ws) {
    this.ws = ws;
    this.snapshot = deferred();
    /** Per session: next expected cursor, bytes received, bytes skipped by resyncs, order errors. */
    this.streams = new Map();
    this.jsonWatchers = new Set();
    this.watchers = new Set();
    this.wireBytes = 0;
    /** Streams with frames to ack at the end of this task. */
    this.ackDue = new Set();
    // A message's data is read at once: LeanSocket's is a view of a buffer the next socket read overwrites.
    ws.binaryType = 'nodebuffer';
    ws.on('message', (data, isBinary) => {
      this.wireBytes += data.length;
      if (isBinary) this.onFrame(data);
      else this.onJson(data);
    });
    ws.on('error', (error) => this.snapshot.reject(error));
    ws.on('close', () => this.snapshot.reject(new Error('panel socket closed')));
  }

  stream(id) {
    let s = this.streams.get(id);
    if (!s) {
      s = { next: null, acked: 0, acks: 0, bytes: 0, skipped: 0, resyncs: 0, orderErrors: 0, resyncBytes: 0 };
      this.streams.set(id, s);
    }
    return s;
  }

  onFrame(frame) {
    const headLength = (frame[0] << 8) | frame[1];
    const header = JSON.parse(frame.toString('utf8', 2, 2 + headLength));
    const length = frame.length - 2 - headLength;
    const s = this.stream(header.id);
    if (s.next !== null && header.cursor !== s.next) s.orderErrors++;
    s.next = header.cursor + length;
    s.bytes += length;
    s.frames = (s.frames ?? 0) + 1;
    if (this.ackDue.size === 0) queueMicrotask(this.sendAcks);
    this.ackDue.add(header.id);
    this.notify();
  }

  /** The acks of the frames read in this task, one per stream that completed a batch. */
  sendAcks = () => {
    for (const id of this.ackDue) {
      const s = this.stream(id);
      if (s.next - s.acked < ACK_BYTES) continue;
      s.acked = s.next;
      s.acks++;
      this.send({ type: 'ack', id, cursor: s.next });
    }
    this.ackDue.clear();
  };

  onJson(data) {
    const message = JSON.parse(data.toString('utf8'));
    if (message.type === 'snapshot') this.snapshot.resolve(message);
    if (message.type === 'resync') {
      const s = this.stream(message.id);
      s.resyncs++;
      s.skipped += message.skipped;
      s.resyncBytes += data.length;
      s.next = message.cursor;
      s.acked = message.cursor; // the core counts its window afresh from a resync
    }
    for (const w of [...this.jsonWatchers]) w(message, data.length);
    this.notify();
  }

  notify() {
    for (const w of [...this.watchers]) w();
  }

  /** Resolves once `predicate()` holds, re-checked after every message. */
  until(predicate, ms, what) {
    const wait = new Promise((resolve) => {
      const check = () => {
        if (!predicate()) return;
        this.watchers.delete(check);
        resolve();
      };
      this.watchers.add(check);
      check();
    });
    return withDeadline(wait, ms, what);
  }

  /** The next JSON message matching `predicate`, with its size on the wire. */
  nextJson(predicate, ms, what) {
    const wait = new Promise((resolve) => {
      const watcher = (message, size) => {
        if (!predicate(message)) return;
        this.jsonWatchers.delete(watcher);
        resolve({ message, size });
      };
      this.jsonWatchers.add(watcher);
    });
    return withDeadline(wait, ms, what);
  }

  send(message) {
    this.ws.send(JSON.stringify(message));
  }

  attach(id, cursor) {
    const s = this.stream(id);
    if (cursor !== null) s.next = s.acked = cursor;
    this.send({ type: 'attach', id, cursor });
  }

  /** Types a line into session `id` and resolves once `marker` shows in what it prints next. */
  async typeUntil(id, line, marker, ms = 30_000) {
    let text = '';
    const seen = deferred();
    const listen = (frame, isBinary) => {
      if (!isBinary) return;
      const headLength = (frame[0] << 8) | frame[1];
      if (!frame.toString('utf8', 2, 2 + headLength).includes(id)) return;
      text += frame.toString('utf8', 2 + headLength);
      if (text.includes(marker)) seen.resolve();
    };
    this.ws.on('message', listen);
    this.send({ type: 'input', id, data: line });
    try {
      await withDeadline(seen.promise, ms, `'${marker}' from session ${id}`);
    } finally {
      this.ws.off('message', listen);
    }
  }

  /**
   * One keystroke round trip on an echo session: send a key, wait for its
   * byte, in ms. Waits on the cursor, not the byte count: if the core resyncs
   * this viewer meanwhile, the echo arrives inside the restored screen.
   */
  async echoLatency(id, i) {
    const s = this.stream(id);
    const target = s.next + 1;
    const started = now();
    this.send({ type: 'input', id, data: keyFor(i) });
    await this.until(() => s.next >= target, 10_000, 'keystroke echo');
    return now() - started;
  }

  /**
   * Starts the echo program in `host` (a core host), attaches to it and warms
   * it up with `warmupKeys` round trips; resolves with its session id.
   */
  async startEcho(host, cwd, warmupKeys) {
    const [file, args] = ECHO_PROGRAM;
    const id = await host.request('create', { input: { command: file, args, cwd } });
    this.attach(id, 0);
    const stream = this.stream(id);
    await this.until(() => stream.bytes >= 1, 10_000, 'echo program ready');
    for (let i = 0; i < warmupKeys; i++) await this.echoLatency(id, i);
    return id;
  }

  async close() {
    if (this.ws.readyState === WebSocket.CLOSED) return;
    const closed = new Promise((resolve) => this.ws.once('close', resolve));
    this.ws.close();
    await withDeadline(closed, 5000, 'panel close').catch(() => this.ws.terminate());
  }
}
