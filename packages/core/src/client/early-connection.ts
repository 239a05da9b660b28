// The connection to the host a short command opens first thing, for its first request to take (bench figure 12).
import { readDiscovery, resolveStateDir } from '../common/discovery.js';
import { nodeNet } from '../common/lazy-builtins.js';
import { isLoopbackAddress } from '../common/loopback.js';
import { connectRawTcp, type ClientSocket } from './raw-tcp.js';

/** At most one per process: `ls`, `status`, `url` and `attach` each make one first request to the host. */
let early: { port: number; host: string; socket: ClientSocket } | undefined;

/**
 * Opens a TCP connection to the host that server.json names (on the loopback), before the
 * command's own code loads: the host takes its look at who connected (an
 * EarlyLook, common/peer-process.ts: a walk of /proc/net/tcp and a read of
 * every process's stat, several milliseconds) while this process loads, asks
 * the kernel who listens and builds its request, instead of after the request
 * came. Nothing is written on it here: the first request to that address takes
 * it (connectTo), and writes only once the kernel's check of the listener
 * passed; a listener the check refuses sees a connection open and close, and
 * not a byte. Does nothing when server.json names no live host, and never
 * throws: the command reads server.json again, and says what is wrong.
 *
 * `raw`: the connection is a RawTcpSocket (raw-tcp.ts) where this Node
 * allows, so that node:net is not loaded before it opens (the launcher's
 * commands), nor at all by `ls`, `url` and `status`.
 */
export function connectEarly(stateDir: string = resolveStateDir(), raw = false): void {
  try {
    const found = readDiscovery(stateDir);
    if (found.status !== 'live') return;
    const url = new URL(found.record.url);
    if (url.protocol !== 'http:') return;
    const host = hostOf(url);
    // Nothing but the loopback before the kernel's check: an agent's shell may have rewritten server.json to name
    // another machine (or a name, looked up first), and a connection there would tell it when this ran.
    if (!isLoopbackAddress(host)) return;
    const port = portOf(url);
    const rawSocket = raw ? connectRawTcp(port, host) : undefined;
    const socket = rawSocket ?? nodeNet().connect(port, host);
    // A failed connection is the taker's to report, by a connection of its own (takeEarlyConnection).
    socket.on('error', () => {});
    early = { port, host, socket };
  } catch {
    // Left to the command's own read of server.json.
  }
}

/**
 * The early connection, once, if it goes to `port` on `host` and is still
 * connecting: its 'connect' not yet emitted, so the taker hears it as from a
 * connection of its own. Undefined otherwise (none, another address, already
 * connected, failed), when the caller connects itself.
 */
export function takeEarlyConnection(port: number, host: string): ClientSocket | undefined {
  const taken = early;
  early = undefined;
  if (!taken) return undefined;
  if (taken.port === port && taken.host === host && taken.socket.connecting && !taken.socket.destroyed) return taken.socket;
  taken.socket.destroy();
  return undefined;
}


/** Closes the early connection if no request took it (the command took another way). */
export function dropEarlyConnection(): void {
  early?.socket.destroy();
  early = undefined;
}

/** The address to connect to: an IPv6 literal is written in brackets in a URL, not to connect(). */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

export function portOf(url: URL): number {
  return Number(url.port || 80);
}
