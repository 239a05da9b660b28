// Reads the kernel's TCP tables: who listens where, and which socket a connection is.
import { endianness } from 'node:os';
import { readOptional } from './proc-fs.js';

/**
 * The kernel's TCP socket tables, /proc/net/tcp and /proc/net/tcp6 (this
 * network namespace's): who listens where, and which socket a connection is.
 */

export interface TcpSocket {
  /** The local end as the table writes it: address words in host byte order, ":", port in hex. */
  local: string;
  remote: string;
  /** Two hex digits; 0A is LISTEN. */
  state: string;
  uid: number;
  /** 0 for a socket no descriptor holds (TIME_WAIT and the like). */
  inode: string;
}

const LISTEN = '0A';

/** The IPv4 table, then the IPv6 one. */
export const TCP_TABLE_PATHS: readonly string[] = ['/proc/net/tcp', '/proc/net/tcp6'];

/** Both tables' text, or undefined when neither can be read (no /proc). */
export function readTcpTables(): string[] | undefined {
  const tables = TCP_TABLE_PATHS.map((path) => readOptional(path)).filter((table) => table !== undefined);
  return tables.length === 0 ? undefined : tables;
}

/**
 * The listening part of both tables, or undefined when neither can be read.
 * The kernel writes every listening socket before any other (it walks its
 * listening hash, then the established one), so this reads a few lines at a
 * time and stops at the first socket that does not listen: the established
 * hash, which the kernel walks whole however few sockets it holds, is then
 * mostly not walked. Where a table has no other socket it is read to its end.
 * What it returns may hold a few sockets that do not listen; callers filter.
 */
export function readListeningTables(): string[] | undefined {
  const tables = TCP_TABLE_PATHS.map(readListeningPart).filter((table) => table !== undefined);
  return tables.length === 0 ? undefined : tables;
}

/** A read asks the kernel for this much: a few lines, so it stops walking soon after the listening sockets. */
const LISTENING_READ_BYTES = 1024;

function readListeningPart(path: string): string | undefined {
  return readOptional(path, { chunkBytes: LISTENING_READ_BYTES, stop: pastListening });
}

/** Whether the text holds a whole line, after the header, of a socket that does not listen. */
function pastListening(text: string): boolean {
  const lines = text.split('\n');
  lines.pop(); // not yet whole
  // After the header: sl local_address rem_address st ...
  return lines.slice(1).some((line) => line.trim().split(/\s+/)[3] !== LISTEN);
}

export function* tcpSockets(tables: readonly string[]): Generator<TcpSocket> {
  for (const table of tables) {
    for (const line of table.split('\n').slice(1)) {
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10) continue;
      yield { local: fields[1]!, remote: fields[2]!, state: fields[3]!, uid: Number(fields[7]), inode: fields[9]! };
    }
  }
}

/**
 * How many TCP sockets (IPv4 and IPv6) are in use, from /proc/net/sockstat{,6}:
 * a fingerprint that changes when a socket starts listening (or any other is
 * opened or closed). Reading /proc/net/tcp walks the kernel's whole hash
 * table however few sockets there are, and these two files are counters the
 * kernel keeps, so a caller looks at the tables only once this has changed
 * (bench/README.md has the costs). Undefined without /proc.
 */
export function tcpFingerprint(): string | undefined {
  const counts = ['/proc/net/sockstat', '/proc/net/sockstat6'].map((path) => /^TCP6?: inuse (\d+)/m.exec(readOptional(path) ?? '')?.[1]);
  return counts.every((count) => count === undefined) ? undefined : counts.join('/');
}

export interface ListeningSocket {
  address: string;
  port: number;
}

/** Every listening TCP socket (IPv4 and IPv6) by inode, or undefined without /proc. */
export function listeningSockets(): Map<string, ListeningSocket> | undefined {
  const tables = readTcpTables();
  if (!tables) return undefined;
  const sockets = new Map<string, ListeningSocket>();
  for (const socket of tcpSockets(tables)) {
    if (socket.state !== LISTEN || socket.inode === '0') continue;
    const [hex, portHex] = socket.local.split(':');
    const bytes = hex === undefined ? undefined : procAddressBytes(hex);
    if (!bytes || !portHex) continue;
    sockets.set(socket.inode, { address: formatAddress(bytes), port: Number.parseInt(portHex, 16) });
  }
  return sockets;
}

/** The table writes an address as 32-bit words in host byte order: 4 bytes for IPv4, 16 for IPv6. */
export function procAddressBytes(hex: string): Buffer | undefined {
  if (hex.length !== 8 && hex.length !== 32) return undefined;
  const bytes = Buffer.alloc(hex.length / 2);
  for (let word = 0; word < hex.length / 8; word++) {
    const value = Number.parseInt(hex.slice(word * 8, word * 8 + 8), 16);
    if (endianness() === 'LE') bytes.writeUInt32LE(value, word * 4);
    else bytes.writeUInt32BE(value, word * 4);
  }
  return bytes;
}

/** 127.0.0.1, ::, ::1, fe80::1 (the longest run of zero groups folded, as people write it). */
function formatAddress(bytes: Buffer): string {
  if (bytes.length === 4) return [...bytes].join('.');
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(bytes.readUInt16BE(i));
  let bestStart = -1;
  let bestLength = 1;
  for (let start = 0; start < 8; start++) {
    let length = 0;
    while (start + length < 8 && groups[start + length] === 0) length++;
    if (length > bestLength) {
      bestStart = start;
      bestLength = length;
    }
  }
  const hex = groups.map((group) => group.toString(16));
  if (bestStart < 0) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}
