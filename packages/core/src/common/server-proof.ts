import { nodeCrypto } from './lazy-builtins.js';
import { randomHex } from './random-hex.js';

/**
 * How `ptydeck mcp` makes sure the server named in server.json is that
 * ptydeck before it sends the token: it sends a fresh random challenge, and
 * only a server that knows the token can answer with its HMAC. A process that
 * took over the port (server.json naming a live pid that was reused) learns
 * nothing from the challenge and gets nothing forwarded. Node built-ins only,
 * so the bridge can load it without the server.
 */
export const PROOF_PATH = '/proof';

/**
 * A client that needs both the proof and an answer from /snapshot or /ticket
 * asks both in one request: the challenge as `?challenge=` there, and the host
 * answers its proof in this header. The client reads the answer only once the
 * proof holds; the request carries no secret, so an unproven server learns
 * nothing from it.
 */
export const PROOF_HEADER = 'ptydeck-proof';

const CONTEXT = 'ptydeck server proof v1\0';

/**
 * A fresh challenge: 32 random bytes, hex. node:crypto is loaded only to
 * check an answer (loadProofCheck): a client loads it while the host judges
 * its request (bench figure 12).
 */
export function newChallenge(): string {
  return randomHex(32);
}

/** Loads what proofHolds needs, so that a client can do it while its request is out (the first proof would otherwise wait for it). */
export function loadProofCheck(): void {
  nodeCrypto();
}

export function isChallenge(text: string | null): text is string {
  return text !== null && /^[0-9a-f]{64}$/.test(text);
}

/** The answer only a holder of `token` can give to `challenge`. */
export function proofOf(token: string, challenge: string): string {
  return nodeCrypto().createHmac('sha256', token).update(CONTEXT + challenge).digest('hex');
}

/** Whether `proof` answers `challenge` for `token`, compared in constant time. */
export function proofHolds(token: string, challenge: string, proof: unknown): boolean {
  if (typeof proof !== 'string' || !/^[0-9a-f]{64}$/.test(proof)) return false;
  return nodeCrypto().timingSafeEqual(Buffer.from(proofOf(token, challenge), 'hex'), Buffer.from(proof, 'hex'));
}
