// A CLI command's panel connection to the running host (`ls`, `attach`), speaking the app's protocol.
import { createRequire } from 'node:module';
import type { RawData, WebSocket } from 'ws';
import {
  Emitter,
  encodeClientMessage,
  PANEL_SUBPROTOCOL,
  PANEL_WS_PATH,
  parseServerMessage,
  TOKEN_SUBPROTOCOL_PREFIX,
  type IncomingPanelMessage,
  type OnEvent,
  type OutputFrame,
  type PanelClientMessage,
  type PanelServerMessage,
} from '@ptydeck/contract';
import { resolveStateDir } from '../common/discovery.js';
import { PanelLinkRefused, panelToken } from './panel-access.js';
import { refusedInside, runningHost } from './running-host.js';
import { printable } from './printable.js';

type SnapshotMessage = Extract<PanelServerMessage, { type: 'snapshot' }>;

/** How long the panel socket's handshake may take. */
const HANDSHAKE_TIMEOUT_MS = 3000;

/**
 * A CLI's panel connection to the running ptydeck (`ls`, `attach`): the
 * server the discovery file names, the panel scope a developer's own process
 * may get, and the panel WebSocket, speaking the same protocol as the app.
 */
export class PanelSession {
  private readonly controlEmitter = new Emitter<PanelServerMessage>({ name: 'panel control message' });
  private readonly outputEmitter = new Emitter<OutputFrame>({ name: 'panel output frame' });
  private readonly closedEmitter = new Emitter<string>({ name: 'panel closed' });
  /** Control messages, validated against the contract. */
  readonly onControl: OnEvent<PanelServerMessage> = this.controlEmitter.on;
  readonly onOutput: OnEvent<OutputFrame> = this.outputEmitter.on;
  /** The socket closed while nobody asked it to; with why, for the user. */
  readonly onClosed: OnEvent<string> = this.closedEmitter.on;
  private closing = false;

  private constructor(
    private readonly ws: WebSocket,
    /** The server's address, for messages. */
    readonly url: string,
    /** The host's process, as the discovery record it was proven by names it: to tell a host gone from a connection dropped. */
    readonly hostPid: number,
    /** The first message of every panel connection: every session and agent now. */
    readonly snapshot: SnapshotMessage,
  ) {
    ws.on('message', (data, isBinary) => this.receive(data, isBinary));
    ws.on('close', (code, reason) => {
      if (this.closing) return;
      this.closing = true;
      this.closedEmitter.fire(`the connection to ${url} closed (${code}${reason.length > 0 ? `: ${printable(reason.toString())}` : ''})`);
    });
  }

  /**
   * Connects to the running host of `stateDir` (found through server.json and
   * proven, never started: there is nothing to list or attach to in a new
   * one) and waits for its snapshot. Throws an Error with a one-line message
   * when none runs, it speaks another host protocol, or it refuses this
   * process (one inside a ptydeck session).
   */
  static async connect(command: string, stateDir: string = resolveStateDir()): Promise<PanelSession> {
    const record = await runningHost(stateDir);
    const server = record.url;
    const token = await panelToken(server).catch((error: unknown) => {
      throw error instanceof PanelLinkRefused && error.inside ? refusedInside(command) : error;
    });
    const ws = new (loadWs())(new URL(PANEL_WS_PATH, server.replace(/^http/, 'ws')), [PANEL_SUBPROTOCOL, TOKEN_SUBPROTOCOL_PREFIX + token], {
      perMessageDeflate: false,
      handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
    });
    const snapshot = await new Promise<SnapshotMessage>((resolve, reject) => {
      const fail = (why: string) => {
        ws.terminate();
        reject(new Error(`ptydeck at ${server} refused the panel connection: ${why}`));
      };
      ws.once('unexpected-response', (_req, res) => fail(`HTTP ${res.statusCode ?? '?'}`));
      ws.once('error', (error) => fail(error.message));
      ws.once('close', () => fail('closed before its snapshot'));
      ws.once('message', (data, isBinary) => {
        const incoming = received(data, isBinary);
        if (incoming.kind === 'control' && incoming.message.type === 'snapshot') resolve(incoming.message);
        else fail('its first message was not a snapshot');
      });
    });
    ws.removeAllListeners();
    ws.on('error', () => undefined); // 'close' follows and says it.
    return new PanelSession(ws, server, record.pid, snapshot);
  }

  send(message: PanelClientMessage): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(encodeClientMessage(message));
  }

  /** Closes the socket; onClosed does not fire for it. */
  close(): void {
    this.closing = true;
    this.ws.close();
  }

  private receive(data: RawData, isBinary: boolean): void {
    const incoming = received(data, isBinary);
    // One this client does not know (a newer host's) is left out, not reported: a report would land in the middle of
    // the session's screen that attach is drawing. A malformed frame is the server's bug; the next resync repairs the screen.
    if (incoming.kind === 'control') this.controlEmitter.fire(incoming.message);
    else if (incoming.kind === 'output') this.outputEmitter.fire(incoming.frame);
  }
}

/** One WebSocket message, checked as every panel client checks it (the contract's panel wire); ws hands text over as bytes. */
function received(data: RawData, isBinary: boolean): IncomingPanelMessage {
  const bytes = Array.isArray(data) ? Buffer.concat(data) : data instanceof ArrayBuffer ? new Uint8Array(data) : data;
  return parseServerMessage(isBinary ? bytes : Buffer.from(bytes).toString('utf8'));
}

/** ws, required rather than imported so that `ptydeck --help` never loads it. */
function loadWs(): typeof import('ws').WebSocket {
  return (createRequire(import.meta.url)('ws') as typeof import('ws')).WebSocket;
}
