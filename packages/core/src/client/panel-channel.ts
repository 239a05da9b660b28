// `ptydeck panel-channel` (hidden), run on a remote through ssh: this machine's host's panel socket, relayed over stdio.
import { createRequire } from 'node:module';
import type { RawData } from 'ws';
import { PANEL_SUBPROTOCOL, PANEL_WS_PATH, TOKEN_SUBPROTOCOL_PREFIX } from '@ptydeck/contract';
import { ensureHost } from './ensure-host.js';
import { panelToken } from './panel-access.js';
import { ChannelKind, ChannelReader, ChannelWriter, MAX_CHANNEL_MESSAGE } from '../remote/channel-frames.js';

const HANDSHAKE_TIMEOUT_MS = 10_000;

/**
 * Relays this machine's panel protocol over stdio for a host on another
 * machine (remote-panel-link.ts there), which shows our sessions in its
 * panels. The panel token is asked of our host as any developer's process
 * asks (the kernel says this process is outside every session) and never
 * leaves this process: the other side holds only the ssh link. Starts a host
 * if none runs, so a tab can be opened here from the first moment.
 *
 * Messages pass untouched both ways: the far host checks what it receives,
 * and ours checks every frame the far side sends. stdout's backlog pauses the
 * socket, so a slow link slows the host's sends instead of filling memory.
 */
export async function runPanelChannel(log: (line: string) => void): Promise<number> {
  const { record } = await ensureHost({ log, start: true });
  const token = await panelToken(record.url);
  const { WebSocket } = createRequire(import.meta.url)('ws') as typeof import('ws');
  const ws = new WebSocket(new URL(PANEL_WS_PATH, record.url.replace(/^http/, 'ws')), [PANEL_SUBPROTOCOL, TOKEN_SUBPROTOCOL_PREFIX + token], {
    perMessageDeflate: false,
    handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
    maxPayload: MAX_CHANNEL_MESSAGE,
  });
  const stdout = process.stdout;
  let paused = false;
  const writer = new ChannelWriter((batch) => {
    const ok = stdout.write(batch);
    if (!ok && !paused) {
      paused = true;
      ws.pause();
      stdout.once('drain', () => {
        paused = false;
        ws.resume();
      });
    }
    return ok;
  });
  // Each message is passed on as the host sent it (no decoding), batched per turn.
  ws.on('message', (data: RawData, isBinary: boolean) => {
    const bytes = Array.isArray(data) ? Buffer.concat(data) : data instanceof ArrayBuffer ? new Uint8Array(data) : data;
    writer.write(isBinary ? ChannelKind.Binary : ChannelKind.Text, bytes);
  });
  const reader = new ChannelReader((kind, payload) => {
    // The host takes text only from a panel; a binary message would be refused there anyway. The JSON goes
    // on as a text frame of its bytes, not decoded and encoded again (the host checks it is UTF-8).
    if (kind === ChannelKind.Text && ws.readyState === ws.OPEN) ws.send(payload, { binary: false });
  });
  return await new Promise<number>((resolve) => {
    const finish = (code: number) => {
      ws.terminate();
      resolve(code);
    };
    ws.once('unexpected-response', (_req, res) => {
      log(`ptydeck panel-channel: the host at ${record.url} refused the panel socket (HTTP ${res.statusCode ?? '?'})`);
      finish(1);
    });
    ws.once('error', (error) => {
      log(`ptydeck panel-channel: ${error.message}`);
      finish(1);
    });
    ws.once('close', () => finish(0));
    process.stdin.on('data', (chunk: Buffer) => {
      try {
        reader.write(chunk);
      } catch (error) {
        log(`ptydeck panel-channel: ${(error as Error).message}`);
        finish(1);
      }
    });
    // The far side closed its end (its panel went, or ssh was told to stop): so do we.
    process.stdin.once('end', () => finish(0));
    stdout.on('error', () => finish(1));
  });
}
