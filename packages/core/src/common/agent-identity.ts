/**
 * An agent's owner id, from the key its `ptydeck mcp` bridge presents
 * (AGENT_KEY_HEADER). A hash, so the id (which panels, `ptydeck ls` and
 * session records show) never gives the key away, and a host started after
 * the last one died gives the same bridge the same id: the sessions it lost
 * stay fenced to it. A connection without a key is a new owner each time.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';

/** 32 random bytes, base64url: what a bridge makes, and the least a host takes (a short key could be guessed). */
const KEY_PATTERN = /^[A-Za-z0-9_-]{43,128}$/;

/** A fresh key, for a bridge to hold in memory for its life. */
export function newAgentKey(): string {
  return randomBytes(32).toString('base64url');
}

/** Whether `key` may name an agent: long and random-looking enough, as newAgentKey makes them. */
export function isAgentKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

/** The owner id for a connection: derived from its key when it presents one, else a new one. */
export function agentOwnerId(key?: string): string {
  if (key === undefined) return `agent-${randomUUID()}`;
  // Domain-separated, so the id is no hash of the key that any other use of it would give.
  return `agent-${createHash('sha256').update('ptydeck agent owner\0').update(key).digest('base64url').slice(0, 32)}`;
}
