import { createRequire } from 'node:module';
import type { RawData, WebSocket } from 'ws';
import {
  decodeOutputFrame,
  Emitter,
  formatZodIssues,
  PANEL_SUBPROTOCOL,
  PANEL_WS_PATH,
  PanelServerMessage,
  TICKET_EXCHANGE_PATH,
  TICKET_FRAGMENT_KEY,
  TOKEN_SUBPROTOCOL_PREFIX,
  type OnEvent,
  type OutputFrame,
  type PanelClientMessage,
} from '@ptydeck/contract';
import { readDiscovery, resolveStateDir } from '../server/discovery.js';
import { TICKET_PATH } from '../server/server-core.js';

type SnapshotMessage = Extract<PanelServerMessage, { type: 'snapshot' }>;

const REQUEST_TIMEOUT_MS = 3000;

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
    /** The first message of every panel connection: every session and agent now. */
    readonly snapshot: SnapshotMessage,
  ) {
    ws.on('message', (data, isBinary) => this.receive(data, isBinary));
    ws.on('close', (code, reason) => {
      if (this.closing) return;
      this.closing = true;
      this.closedEmitter.fire(`the connection to ptydeck at ${url} closed (${code}${reason.length > 0 ? `: ${reason.toString()}` : ''})`);
    });
  }

  /**
   * Connects to the ptydeck that server.json in `stateDir` names and waits for
   * its snapshot. Throws an Error with a one-line message when there is none,
   * it does not answer, or it refuses this process (inside a ptydeck session).
   */
  static async connect(command: string, stateDir: string = resolveStateDir()): Promise<PanelSession> {
    const server = findServer();
    function findServer(): string {
      const found = readDiscovery(stateDir);
      if (found.status === 'live') return found.record.url;
      const why = found.status === 'stale' ? `${found.path} is stale (pid ${found.record.pid} is gone)` : found.status === 'missing' ? `no ${found.path}` : `${found.path}: ${found.reason}`;
      throw new Error(`no running ptydeck found (${why}); start one with \`ptydeck serve\``);
    }
    const token = await panelToken(server, command);
    const ws = new (loadWs())(new URL(PANEL_WS_PATH, server.replace(/^http/, 'ws')), [PANEL_SUBPROTOCOL, TOKEN_SUBPROTOCOL_PREFIX + token], {
      perMessageDeflate: false,
      handshakeTimeout: REQUEST_TIMEOUT_MS,
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
        const message = isBinary ? undefined : parseControl(data);
        if (message?.type === 'snapshot') resolve(message);
        else fail('its first message was not a snapshot');
      });
    });
    ws.removeAllListeners();
    ws.on('error', () => undefined); // 'close' follows and says it.
    return new PanelSession(ws, server, snapshot);
  }

  send(message: PanelClientMessage): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify(message));
  }

  /** Closes the socket; onClosed does not fire for it. */
  close(): void {
    this.closing = true;
    this.ws.close();
  }

  private receive(data: RawData, isBinary: boolean): void {
    if (!isBinary) {
      const message = parseControl(data);
      if (message) this.controlEmitter.fire(message);
      return;
    }
    let frame: OutputFrame;
    try {
      frame = decodeOutputFrame(toBytes(data));
    } catch {
      return; // A malformed frame is the server's bug; the next resync repairs the screen.
    }
    this.outputEmitter.fire(frame);
  }
}

/**
 * Panel scope, the way `ptydeck url` gets it: POST /ticket with no credential
 * (the server asks the kernel who is calling and refuses a process inside any
 * ptydeck session), then trade the one-time ticket for the panel token as the
 * panel's page does, with the server's own Origin.
 */
async function panelToken(server: string, command: string): Promise<string> {
  const minted = await postJson(server, TICKET_PATH, undefined, {});
  if (minted.status === 403 && /^refused: /.test(String(minted.body.error))) {
    throw new Error(
      `\`${command}\` is refused inside a ptydeck session (an agent's shell, or a tab of the panel): it needs the panel's scope, which ptydeck gives only to a terminal of your own. Run it outside ptydeck.`,
    );
  }
  if (minted.status !== 200 || typeof minted.body.url !== 'string') {
    const why = typeof minted.body.shownIn === 'string'
      ? 'this system cannot tell ptydeck which process is asking, so it gives panel access only through the panel itself'
      : typeof minted.body.error === 'string' ? minted.body.error : `HTTP ${minted.status}`;
    throw new Error(`ptydeck at ${server} gave no panel access: ${why}`);
  }
  const ticket = new URLSearchParams(new URL(minted.body.url).hash.slice(1)).get(TICKET_FRAGMENT_KEY);
  const exchanged = await postJson(server, TICKET_EXCHANGE_PATH, new URL(server).origin, { ticket });
  if (exchanged.status !== 200 || typeof exchanged.body.token !== 'string') {
    throw new Error(`ptydeck at ${server} did not take its own ticket: ${String(exchanged.body.error ?? `HTTP ${exchanged.status}`)}`);
  }
  return exchanged.body.token;
}

async function postJson(server: string, path: string, origin: string | undefined, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(new URL(path, server), {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(origin === undefined ? {} : { Origin: origin }) },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  }).catch((error: Error) => {
    throw new Error(`ptydeck at ${server} is not answering (${error.message})`);
  });
  const json = (await response.json().catch(() => ({}))) as unknown;
  return { status: response.status, body: json !== null && typeof json === 'object' ? (json as Record<string, unknown>) : {} };
}

function parseControl(data: RawData): PanelServerMessage | undefined {
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(toBytes(data)).toString('utf8'));
  } catch {
    return undefined;
  }
  const parsed = PanelServerMessage.safeParse(json);
  if (!parsed.success) {
    process.emitWarning(`ptydeck: ignored an invalid panel message: ${formatZodIssues(parsed.error)}`);
    return undefined;
  }
  return parsed.data;
}

function toBytes(data: RawData): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  return data instanceof ArrayBuffer ? new Uint8Array(data) : data;
}

/** ws, required rather than imported so that `ptydeck --help` never loads it. */
function loadWs(): typeof import('ws').WebSocket {
  return (createRequire(import.meta.url)('ws') as typeof import('ws')).WebSocket;
}
