// The WebSocket server of the panel socket (ws, loaded with the first panel), apart from the HTTP routes that hand it sockets.
import type { IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import type { WebSocketServer } from 'ws';
import { PANEL_SUBPROTOCOL, TOKEN_SUBPROTOCOL_PREFIX } from '@ptydeck/contract';

/** Largest panel frame: a 1 Mi-character paste, JSON-escaped, fits with room. */
const MAX_PANEL_FRAME_BYTES = 8 * 1024 * 1024;

/**
 * A ws server with no HTTP server of its own (the caller hands it each upgrade it accepted), which adds to each
 * handshake's 101 the headers `headersOf` gives it (the proof it asked, PROOF_HEADER; the session it named and the host
 * attached, PANEL_ATTACHED_HEADER). Made on the first panel upgrade: an agent-only server never loads ws (15 to 40 ms of
 * its start).
 */
export function newPanelSocketServer(headersOf: (req: IncomingMessage) => Readonly<Record<string, string>> | undefined): WebSocketServer {
  const server = new (loadWs().WebSocketServer)({
    noServer: true,
    maxPayload: MAX_PANEL_FRAME_BYTES,
    perMessageDeflate: false,
    // Invalid UTF-8 then fails JSON parsing and gets an error reply, instead of ws closing the panel.
    skipUTF8Validation: true,
    // Answer with a neutral protocol when offered so the token is not echoed back.
    handleProtocols: (protocols) => {
      if (protocols.has(PANEL_SUBPROTOCOL)) return PANEL_SUBPROTOCOL;
      for (const p of protocols) if (p.startsWith(TOKEN_SUBPROTOCOL_PREFIX)) return p;
      return false;
    },
  });
  return server.on('headers', (headers, req) => {
    for (const [name, value] of Object.entries(headersOf(req) ?? {})) headers.push(`${name}: ${value}`);
  });
}

/** ws, required rather than imported so that it loads with the first panel, not at start. */
function loadWs(): typeof import('ws') {
  return createRequire(import.meta.url)('ws') as typeof import('ws');
}
