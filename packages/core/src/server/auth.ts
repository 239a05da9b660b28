// The local server's secrets and request guards: tokens, Host and Origin checks.
import * as crypto from 'node:crypto';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** 256 random bits, URL-safe: each per-launch secret (the agent token, the panel token, a ticket). */
export function generateSecret(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Compares secrets in constant time. Hashing first gives equal-length inputs
 * to timingSafeEqual, so neither the content nor the length leaks.
 */
export function secretsEqual(received: string, expected: string): boolean {
  return timingSafeEqual(digestOf(received), digestOf(expected));
}

/**
 * secretsEqual against one fixed secret, whose digest is taken once: the
 * agent token is checked on every MCP request, and hashing it again each
 * time was a second SHA-256 per call (bench figure 4).
 */
export function secretMatcher(expected: string): (received: string) => boolean {
  const digest = digestOf(expected);
  return (received) => timingSafeEqual(digestOf(received), digest);
}

/**
 * SHA-256 of a secret. crypto.hash (Node 20.12 on) makes no Hash object: the
 * received token is hashed on every MCP request, and the object's making and
 * finishing were about 1.5% of the host's main thread per call (bench figure 4).
 */
const oneShotHash = (crypto as { hash?: (algorithm: string, data: string, encoding: 'buffer') => Buffer }).hash;

function digestOf(secret: string): Buffer {
  return oneShotHash ? oneShotHash('sha256', secret, 'buffer') : createHash('sha256').update(secret, 'utf8').digest();
}

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

export type GuardVerdict = { ok: true } | { ok: false; status: 401 | 403; reason: string };

/**
 * The DNS-rebinding and cross-site defence shared by every route: the Host
 * must name this server on a loopback name (or the interface it was explicitly
 * bound to), and an Origin, when present, must be this server's own.
 * `Origin: null` (sandboxed frames, file pages) is refused like any foreign one.
 */
export class RequestGuard {
  private readonly hosts: Set<string>;
  private readonly origins: Set<string>;

  /** `boundAddress`: the address a name in `boundHost` was bound to, which server.json names (http-server.ts). */
  constructor(port: number, boundHost: string, boundAddress?: string) {
    const names = new Set(LOOPBACK_NAMES);
    for (const bound of [boundHost, boundAddress]) {
      if (bound !== undefined && !isWildcard(bound)) names.add(bound.includes(':') && !bound.startsWith('[') ? `[${bound}]` : bound);
    }
    this.hosts = new Set([...names].map((name) => `${name}:${port}`.toLowerCase()));
    this.origins = new Set([...names].map((name) => `http://${name}:${port}`.toLowerCase()));
  }

  checkHostAndOrigin(headers: IncomingHttpHeaders): GuardVerdict {
    const host = headers.host?.toLowerCase();
    if (!host || !this.hosts.has(host)) return { ok: false, status: 403, reason: 'Host is not this server on a loopback name' };
    const origin = headers.origin;
    if (origin !== undefined && !this.origins.has(origin.toLowerCase())) {
      return { ok: false, status: 403, reason: 'Origin is not this server' };
    }
    return { ok: true };
  }

  /** The validated Host header, for building same-origin URLs (CSP connect-src). */
  static hostOf(headers: IncomingHttpHeaders): string {
    return headers.host?.toLowerCase() ?? '';
  }
}

function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '';
}

/** Reads `Authorization: Bearer <token>`; undefined when absent or of another scheme. */
export function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  const value = headers.authorization;
  if (!value) return undefined;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(value);
  return match?.[1];
}

/** Subprotocols offered in Sec-WebSocket-Protocol. */
export function offeredSubprotocols(headers: IncomingHttpHeaders): string[] {
  const header = headers['sec-websocket-protocol'];
  if (!header) return [];
  return header
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
}

/**
 * One-time, short-lived tickets a browser trades for the panel token, so the
 * printed link is useless once opened and the token never enters history.
 */
export class TicketBook {
  private readonly tickets = new Map<string, number>();

  constructor(private readonly ttlMs: number) {}

  issue(now = Date.now()): string {
    this.sweep(now);
    const ticket = generateSecret();
    this.tickets.set(ticket, now + this.ttlMs);
    return ticket;
  }

  /** True once per ticket, within its lifetime. */
  redeem(ticket: string, now = Date.now()): boolean {
    this.sweep(now);
    // Map lookup by the secret itself: compare in constant time instead.
    for (const [candidate, expires] of this.tickets) {
      if (secretsEqual(ticket, candidate)) {
        this.tickets.delete(candidate);
        return expires > now;
      }
    }
    return false;
  }

  private sweep(now: number): void {
    for (const [ticket, expires] of this.tickets) if (expires <= now) this.tickets.delete(ticket);
  }
}
