import type { ListeningPort } from '@ptydeck/contract';
import { shownText } from '../lib/shown-text.js';

/** One chip per port number: a server listening on both IPv4 and IPv6 is one server to the developer. */
export interface PortChip {
  port: number;
  /** Where a click opens it, or null when it does not listen on this machine's loopback. */
  url: string | null;
  /** Every socket behind the chip, for its title. */
  sockets: ListeningPort[];
}

const IPV4_LOOPBACK = /^127\./;

/**
 * The URL a chip opens: loopback only, since a click must reach the server the
 * session started and nothing else. A wildcard listener (0.0.0.0, ::) answers
 * on loopback too; one bound to another address does not, and gets no link.
 */
function loopbackUrl(socket: ListeningPort): string | null {
  if (socket.address === '0.0.0.0' || socket.address === '::' || IPV4_LOOPBACK.test(socket.address)) return `http://127.0.0.1:${socket.port}/`;
  if (socket.address === '::1') return `http://[::1]:${socket.port}/`;
  return null;
}

export function portChips(ports: readonly ListeningPort[] | null | undefined): PortChip[] {
  const chips = new Map<number, PortChip>();
  for (const socket of ports ?? []) {
    const chip = chips.get(socket.port) ?? { port: socket.port, url: null, sockets: [] };
    chip.sockets.push(socket);
    // 127.0.0.1 first: it answers wherever a wildcard listener does.
    const url = loopbackUrl(socket);
    if (url !== null && (chip.url === null || chip.url.startsWith('http://['))) chip.url = url;
    chips.set(socket.port, chip);
  }
  return [...chips.values()].sort((a, b) => a.port - b.port);
}

/** "python3 -m http.server (pid 4242) on 127.0.0.1, ::1" */
export function portTitle(chip: PortChip): string {
  // A holder's command line is its own to set (exec -a): drawn as the Timeline draws a command.
  const holders = [...new Set(chip.sockets.map((socket) => `${shownText(socket.command) || 'unknown'} (pid ${socket.pid})`))].join(', ');
  const where = chip.sockets.map((socket) => socket.address).join(', ');
  const action = chip.url === null ? 'not on loopback: no link' : `open ${chip.url}`;
  return `Port ${chip.port}: ${holders} on ${where}; ${action}`;
}
