// The WebSocket server of the panel socket (ws, loaded with the first panel), apart from the HTTP routes that hand it sockets.
import type { IncomingMessage } from 'node:http';
import { createRequire } from 'node:module';
import type { WebSocketServer } from 'ws';
import { PANEL_SUBPROTOCOL, TOKEN_SUBPROTOCOL_PREFIX } from '@ptydeck/contract';
import { PROOF_HEADER } from '../common/server-proof.js';

/** Largest panel frame: a 1 Mi-character paste, JSON-escaped, fits with room. */
const MAX_PANEL_FRAME_BYTES = 8 * 1024 * 1024;

/**
 * A ws server with no HTTP server of its own (the caller hands it each upgrade it accepted), which answers each
 * handshake's proof (`proofOf`, PROOF_HEADER) in its 101. Made on the first panel upgrade: an agent-only server never
 * loads ws (15 to 40 ms of its start).
 */
export function newPanelSocketServer(proofOf: (req: IncomingMessage) => string | undefined): WebSocketServer {
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
    const proof = proofOf(req);
    if (proof !== undefined) headers.push(`${PROOF_HEADER}: ${proof}`);
  });
}

/** ws, required rather than imported so that it loads with the first panel, not at start. */
function loadWs(): typeof import('ws') {
  return createRequire(import.meta.url)('ws') as typeof import('ws');
}
