// A CLI command's panel connection to the running host (`attach`, `export`), speaking the app's protocol.
import {
  ASKER_PID_HEADER,
  Emitter,
  PANEL_ATTACH_PARAM,
  PANEL_ATTACHED_HEADER,
  PANEL_SUBPROTOCOL,
  PANEL_WS_PATH,
  PanelChannel,
  parseServerMessage,
  type IncomingPanelMessage,
  type OnEvent,
  type PanelSocket,
} from '@ptydeck/contract';
import { resolveStateDir, type DiscoveryRecord } from '../common/discovery.js';
import { newChallenge, PROOF_HEADER, proofHolds } from '../common/server-proof.js';
import { readSnapshot, type SnapshotMessage } from './host-snapshot.js';
import { parseJson } from './host-request.js';
import { isObject } from './snapshot-check.js';
import { vouchedHost } from './proven-request.js';
import { refusedInside, runningHost } from './running-host.js';
import { printable } from '../common/printable.js';
import { openWebSocket, UpgradeRefused, type ClientWebSocket } from './web-socket.js';

/** How long the panel socket's handshake may take. */
const HANDSHAKE_TIMEOUT_MS = 3000;
/** The largest message taken from the host: a resync's screen, scrollback and all, is the largest it sends. */
const MAX_MESSAGE_BYTES = 100 * 1024 * 1024;

/**
 * How a command checks what the host sends: the contract's parse of every
 * message (`export`), or attach's hand check of the few it reads
 * (attach-messages.ts), which spares it zod.
 */
export type PanelReader = (data: Uint8Array, binary: boolean) => IncomingPanelMessage;

/** The contract's check of every message, as the app checks them: for a command that reads more than attach does. */
export const readPanelMessage: PanelReader = (data, binary) => parseServerMessage(binary ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8'));

/** One message off the CLI's WebSocket. */
type SocketMessage = { data: Buffer; binary: boolean };

/**
 * A CLI's panel connection to the running ptydeck (`attach`, `export`): the
 * server the discovery file names, and the panel WebSocket, opened by this
 * process's pid, which the host judges as it judges /ticket (outside every
 * session, by the kernel's word). The protocol is the contract's PanelChannel,
 * the app's own, over this process's socket and with the command's reader.
 */
export class PanelSession {
  private readonly closedEmitter = new Emitter<string>({ name: 'panel closed' });
  /** The socket closed while nobody asked it to; with why, for the user. */
  readonly onClosed: OnEvent<string> = this.closedEmitter.on;
  /** The protocol: the channels' events, and attach, input, acks and requests, sent once the snapshot came. */
  readonly channel: PanelChannel<SocketMessage>;
  /** The session the host attached as the socket opened (connect's `attach`, PANEL_ATTACHED_HEADER); the channel tracks it. */
  readonly attached: string | undefined;
  /**
   * With `attach`, messages held until listen(): those that came with the snapshot (the session's resync among them,
   * often in the same read) and any after them before it; null once it ran, and without `attach`, where they are
   * handed on at once as they come.
   */
  private held: SocketMessage[] | null;

  private constructor(
    private readonly ws: ClientWebSocket,
    /** The server's address, for messages. */
    readonly url: string,
    /** The host's process, as the discovery record it was proven by names it: to tell a host gone from a connection dropped. */
    readonly hostPid: number,
    /** The first message of every panel connection: every session and agent now. */
    readonly snapshot: SnapshotMessage,
    read: PanelReader,
    early: SocketMessage[],
    hold: boolean,
  ) {
    this.held = hold ? early : null;
    // Sent as they are: the CLI builds few messages (attach's sizes are clamped, its cursors the host's own) and the
    // host checks every frame and answers an error, where the contract's check would load zod for each.
    this.channel = new PanelChannel<SocketMessage>({ read: ({ data, binary }) => read(data, binary), encode: (message) => JSON.stringify(message) });
    this.channel.onClosed(({ code, reason }) => {
      this.closedEmitter.fire(`the connection to ${url} closed (${code}${reason.length > 0 ? `: ${printable(reason)}` : ''})`);
    });
    // Through the hold, so that a message read before the command listens (listen()) is neither lost nor out of order.
    const holding: PanelSocket<SocketMessage> = {
      send: (text) => ws.send(text),
      onMessage: (listener) => ws.onMessage((message) => (this.held ? this.held.push(message) : listener(message))),
      onClose: (listener) => ws.onClose(listener),
    };
    this.channel.use(holding, snapshot);
    const attached = ws.headers[PANEL_ATTACHED_HEADER];
    this.attached = attached !== undefined && snapshot.sessions.some((info) => info.id === attached) ? attached : undefined;
    if (this.attached !== undefined) this.channel.attachedByServer(this.attached);
    if (!hold) for (const message of early) this.channel.receive(message);
  }

  /**
   * Hands the channel what was held (connect's `attach`): called once the command listens to the channel, which then
   * gets every message in order.
   */
  listen(): void {
    const held = this.held;
    if (!held) return;
    // Each in its turn: one a listener's work held meanwhile comes after them.
    for (let message = held.shift(); message; message = held.shift()) this.channel.receive(message);
    this.held = null;
  }

  /**
   * Connects to the running host of `stateDir` (never started: there is
   * nothing to attach to in a new one) and waits for its snapshot. When
   * server.json and the kernel vouch for the host, the handshake is all
   * (provenRequest says why no proof then); where the kernel cannot say, the
   * handshake asks the proof (`?challenge=`, answered in PROOF_HEADER) and
   * nothing is sent on the socket before it holds: one round trip where a
   * /proof, a /ticket, its exchange and the handshake were four (bench figure 12).
   * Otherwise the long way: ensureHost proves it first, and says what is off.
   * With `attach` (an id or a prefix), the handshake names that session where
   * the kernel vouched or ensureHost proved the host, never with a challenge
   * (PANEL_ATTACH_PARAM; `attached` says whether the host took it), and what
   * comes with the snapshot is held until listen().
   * Throws an Error with a one-line message when none runs, it speaks another
   * host protocol, or it refuses this process (one inside a ptydeck session).
   */
  static async connect(command: string, options: { stateDir?: string; read: PanelReader; attach?: string }): Promise<PanelSession> {
    const stateDir = options.stateDir ?? resolveStateDir();
    const vouched = vouchedHost(stateDir);
    if (vouched?.byKernel) {
      const opened = await openPanel(vouched.record, options.attach).catch((error: unknown) => error);
      if (!(opened instanceof Error) || opened instanceof UpgradeRefused) return PanelSession.joined(command, vouched.record, opened, options);
    } else if (vouched) {
      const challenge = newChallenge();
      // Nothing of the command's before the proof holds, the session it names neither: asked with `attach` once it does.
      const opened = await openPanel(vouched.record, undefined, challenge).catch((error: unknown) => error);
      const proof = opened instanceof UpgradeRefused ? opened.headers[PROOF_HEADER] : opened instanceof Error ? undefined : (opened as ClientWebSocket).headers[PROOF_HEADER];
      if (proofHolds(vouched.record.token, challenge, proof)) return PanelSession.joined(command, vouched.record, opened, options);
      if (!(opened instanceof Error)) (opened as ClientWebSocket).terminate();
    }
    const record = await runningHost(stateDir);
    return PanelSession.joined(
      command,
      record,
      await openPanel(record, options.attach).catch((error: unknown) => error),
      options,
    );
  }

  /** The session on a socket the host opened, once its snapshot came; or the one line that says why not. */
  private static async joined(command: string, record: DiscoveryRecord, opened: unknown, options: { read: PanelReader; attach?: string }): Promise<PanelSession> {
    const server = record.url;
    if (opened instanceof UpgradeRefused) {
      if (opened.status === 403 && opened.body.startsWith('refused: ')) throw refusedInside(command);
      throw new Error(`ptydeck at ${server} refused the panel connection: ${opened.message}`);
    }
    if (opened instanceof Error) throw new Error(`ptydeck at ${server} refused the panel connection: ${opened.message}`);
    const ws = opened as ClientWebSocket;
    // Messages after the snapshot, while it is read (the schema's fallback loads on demand): handed on in order.
    const early: Array<{ data: Buffer; binary: boolean }> = [];
    let first: { data: Buffer; binary: boolean } | undefined;
    let gotFirst!: () => void;
    const firstCame = new Promise<void>((resolve) => (gotFirst = resolve));
    const offMessage = ws.onMessage((message) => {
      if (first) return early.push(message);
      first = message;
      gotFirst();
    });
    let offClose = () => {};
    const snapshot = await new Promise<SnapshotMessage>((resolve, reject) => {
      const fail = (why: string) => {
        ws.terminate();
        reject(new Error(`ptydeck at ${server} refused the panel connection: ${why}`));
      };
      offClose = ws.onClose(() => fail('closed before its snapshot'));
      void firstCame.then(() => {
        const value = first!.binary ? undefined : parseJson(first!.data.toString('utf8'));
        if (!isObject(value) || value.type !== 'snapshot') return fail('its first message was not a snapshot');
        readSnapshot(value, server).then(resolve, (error: Error) => fail(error.message));
      });
    }).finally(() => offClose());
    offMessage();
    return new PanelSession(ws, server, record.pid, snapshot, options.read, early, options.attach !== undefined);
  }

  /** Closes the socket; onClosed does not fire for it. */
  close(): void {
    this.channel.dispose();
    this.closedEmitter.clear();
    this.ws.close();
  }
}

/**
 * The panel socket of the host `record` names, opened by this process's pid; with `attach`, that session attached as it
 * opens (PANEL_ATTACH_PARAM); with a challenge, its proof asked too.
 */
function openPanel(record: DiscoveryRecord, attach: string | undefined, challenge?: string): Promise<ClientWebSocket> {
  const url = new URL(PANEL_WS_PATH, record.url.replace(/^http/, 'ws'));
  // The query by hand: a URL's first searchParams builds Node's URLSearchParams, 0.3 ms of CPU before the handshake
  // (bench figure 12). The host reads it with searchParams, which decodes what encodeURIComponent encodes.
  const query: [string, string][] = [];
  if (attach !== undefined) query.push([PANEL_ATTACH_PARAM, attach]);
  if (challenge !== undefined) query.push(['challenge', challenge]);
  if (query.length > 0) url.search = `?${query.map(([name, value]) => `${name}=${encodeURIComponent(value)}`).join('&')}`;
  return openWebSocket(url, {
    protocols: [PANEL_SUBPROTOCOL],
    headers: { [ASKER_PID_HEADER]: String(process.pid) },
    timeoutMs: HANDSHAKE_TIMEOUT_MS,
    maxMessage: MAX_MESSAGE_BYTES,
  });
}
