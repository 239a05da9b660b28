// Reads the kernel's TCP tables: who listens where, and which socket a connection is.
import { closeSync, openSync, promises as fsPromises, readSync } from 'node:fs';
import { readLineAt, readOptional } from './proc-fs.js';

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

const IPV6_TABLE = '/proc/net/tcp6';
/** The IPv4 table, then the IPv6 one. */
export const TCP_TABLE_PATHS: readonly string[] = ['/proc/net/tcp', IPV6_TABLE];

/**
 * The listening sockets of both tables (every row with another state is left
 * out), or undefined when neither can be read. The kernel writes every
 * listening socket before any other (it walks its listening hash, then the
 * established one), so a table is read a few rows at a time only until its
 * first socket that does not listen: the established hash, which the kernel
 * walks whole to find a table's end however few sockets it holds, is then
 * mostly not walked. The IPv6 table is not read at all when the kernel's
 * count of IPv6 TCP sockets (sockstat6, which counts every listening one) is
 * zero: on a machine without them, reading it to its end was most of a
 * client's check of the host (bench figure 12).
 */
export function listeningRows(): TcpSocket[] | undefined {
  const rows: TcpSocket[] = [];
  const { paths, skipped } = tablesWorthReading();
  let readable = skipped;
  for (const path of paths) readable = scanTcpTable(path, listenersInto(rows)) || readable;
  return readable ? rows : undefined;
}

/** The tables listeningRows reads: the IPv6 one only while the kernel counts IPv6 sockets; one left out counts as read. */
function tablesWorthReading(): { paths: readonly string[]; skipped: boolean } {
  if (ipv6SocketCount() !== 0) return { paths: TCP_TABLE_PATHS, skipped: false };
  return { paths: TCP_TABLE_PATHS.filter((path) => path !== IPV6_TABLE), skipped: true };
}

/** A visit that keeps the listening rows in `rows`, and stops at the first that does not listen (see listeningRows). */
function listenersInto(rows: TcpSocket[]): (socket: TcpSocket) => boolean {
  return (socket) => {
    if (socket.state !== LISTEN) return true;
    rows.push(socket);
    return false;
  };
}

/**
 * listeningRows with each table's reads made on libuv's thread pool, not this thread: the kernel's walk to a
 * table's first socket that does not listen is most of a read's cost (2 to 5 ms on a loaded machine, tens in
 * single samples: the whole established hash when a table holds only listeners), and in one turn of a
 * host's loop it was a turn a typed key's echo could wait behind (the process watch's look, every 2 s while
 * a panel watches). What it returns is what listeningRows returns; only the thread that waits differs.
 */
export async function listeningRowsOffThread(): Promise<TcpSocket[] | undefined> {
  const rows: TcpSocket[] = [];
  const { paths, skipped } = tablesWorthReading();
  let readable = skipped;
  for (const path of paths) readable = (await scanTcpTableOffThread(path, listenersInto(rows))) || readable;
  return readable ? rows : undefined;
}

/** How many IPv6 TCP sockets are hashed (listening or connected), by the kernel's count; undefined where it does not say. */
function ipv6SocketCount(): number | undefined {
  const count = /^TCP6: inuse (\d+)/m.exec(readOptional('/proc/net/sockstat6') ?? '')?.[1];
  return count === undefined ? undefined : Number(count);
}

/** A read asks the kernel for this much: a few rows, so that it walks little past where a caller stops. */
const ROWS_READ_BYTES = 1024;

/**
 * Calls `visit` with each socket of the table at `path` in the kernel's
 * order, read a few rows at a time, until it returns true: a caller that has
 * what it looks for spares the kernel the rest of its walk. Read to its end,
 * a table costs two walks of the kernel's whole established hash (one to
 * find the end, one more for the read that sees it: with 262144 buckets, 2.5
 * ms each). False when the table cannot be read. With `mayMatch`, a row it
 * says no to is passed over unparsed: it must say yes to every row `visit`
 * would stop at (a text test of the row, such as a port followed by a space).
 */
export function scanTcpTable(path: string, visit: (socket: TcpSocket) => boolean, mayMatch?: (row: string) => boolean): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return false;
  }
  syncTableReads++;
  try {
    const rows = new TableRows(visit, mayMatch);
    const chunk = Buffer.allocUnsafe(ROWS_READ_BYTES);
    for (;;) {
      const read = readSync(fd, chunk, 0, chunk.length, null);
      if (read === 0 || rows.take(chunk, read)) return true;
    }
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}

/** scanTcpTable with its open, reads and close on libuv's thread pool (see listeningRowsOffThread). */
async function scanTcpTableOffThread(path: string, visit: (socket: TcpSocket) => boolean): Promise<boolean> {
  let handle: fsPromises.FileHandle;
  try {
    handle = await fsPromises.open(path, 'r');
  } catch {
    return false;
  }
  try {
    const rows = new TableRows(visit);
    const chunk = Buffer.allocUnsafe(ROWS_READ_BYTES);
    for (;;) {
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0 || rows.take(chunk, bytesRead)) return true;
    }
  } catch {
    return false;
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/**
 * How many times this thread has read a TCP table with its own system calls (scanTcpTable): a test counts
 * them per turn of the loop, to see that a read left for the thread pool is not made in a turn after all.
 */
let syncTableReads = 0;
export function tcpTableReadsOnThread(): number {
  return syncTableReads;
}

/** A table's text as it is read, cut into rows for `visit` (the header skipped, a row split across reads kept whole). */
class TableRows {
  private pending = '';
  private header = true;

  constructor(
    private readonly visit: (socket: TcpSocket) => boolean,
    private readonly mayMatch?: (row: string) => boolean,
  ) {}

  /** Takes the first `length` bytes of `chunk`; true once `visit` has stopped the scan. */
  take(chunk: Buffer, length: number): boolean {
    this.pending += chunk.toString('latin1', 0, length);
    const lines = this.pending.split('\n');
    this.pending = lines.pop()!; // not yet whole
    for (const line of lines) {
      if (this.header) {
        this.header = false;
        continue;
      }
      if (this.mayMatch && !this.mayMatch(line)) continue;
      const socket = parseRow(line);
      if (socket && this.visit(socket)) return true;
    }
    return false;
  }
}

/** One row: sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ... */
function parseRow(line: string): TcpSocket | undefined {
  const fields = line.trim().split(/\s+/);
  if (fields.length < 10) return undefined;
  return { local: fields[1]!, remote: fields[2]!, state: fields[3]!, uid: Number(fields[7]), inode: fields[9]! };
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
  return fingerprintOf(SOCKSTAT_PATHS.map((path) => readOptional(path)));
}

const SOCKSTAT_PATHS = ['/proc/net/sockstat', '/proc/net/sockstat6'];

function fingerprintOf(texts: Array<string | undefined>): string | undefined {
  const counts = texts.map((text) => /^TCP6?: inuse (\d+)/m.exec(text ?? '')?.[1]);
  return counts.every((count) => count === undefined) ? undefined : counts.join('/');
}

/**
 * tcpFingerprint through descriptors kept open on the two counters files,
 * each read afresh from its start: one pread per file instead of an open (a
 * path walk through /proc/self/net), two reads and a close. Every terminal_run
 * result looks (OwnedProcesses.nothingOpened), and those eight system calls were
 * about 5% of the host's main thread per call (bench figure 4). A file that
 * cannot be held, or whose held read fails, is read by path as before.
 * The descriptors are this host's network namespace's, as the paths are.
 */
export class TcpFingerprint {
  private fds: Array<number | undefined> | undefined;
  private disposed = false;

  read(): string | undefined {
    if (this.disposed) return tcpFingerprint();
    this.fds ??= SOCKSTAT_PATHS.map((path) => {
      try {
        return openSync(path, 'r');
      } catch {
        return undefined;
      }
    });
    return fingerprintOf(
      SOCKSTAT_PATHS.map((path, i) => {
        const fd = this.fds![i];
        const text = fd === undefined ? undefined : readLineAt(fd);
        if (text !== undefined || fd === undefined) return text ?? readOptional(path);
        closeSync(fd);
        this.fds![i] = undefined;
        return readOptional(path);
      }),
    );
  }

  /** Closes the descriptors; a later read reads by path. */
  dispose(): void {
    this.disposed = true;
    for (const fd of this.fds ?? []) if (fd !== undefined) closeSync(fd);
    this.fds = undefined;
  }
}

export interface ListeningSocket {
  address: string;
  port: number;
}

/** The host part of a URL (or ssh forward) that reaches a listener at `address` from this machine: a wildcard on loopback. */
export function reachableHost(address: string): string {
  if (address === '0.0.0.0' || address === '::' || address === '') return '127.0.0.1';
  return address.includes(':') ? `[${address}]` : address;
}

/** Every listening TCP socket (IPv4 and IPv6) by inode, or undefined without /proc. */
export function listeningSockets(): Map<string, ListeningSocket> | undefined {
  return socketsOf(listeningRows());
}

/** listeningSockets with the tables read on libuv's thread pool (listeningRowsOffThread): for what is only shown, read between turns. */
export async function listeningSocketsOffThread(): Promise<Map<string, ListeningSocket> | undefined> {
  return socketsOf(await listeningRowsOffThread());
}

function socketsOf(rows: TcpSocket[] | undefined): Map<string, ListeningSocket> | undefined {
  if (!rows) return undefined;
  const sockets = new Map<string, ListeningSocket>();
  for (const socket of rows) {
    if (socket.inode === '0') continue;
    const [hex, portHex] = socket.local.split(':');
    const bytes = hex === undefined ? undefined : procAddressBytes(hex);
    if (!bytes || !portHex) continue;
    sockets.set(socket.inode, { address: formatAddress(bytes), port: Number.parseInt(portHex, 16) });
  }
  return sockets;
}

/** This machine's byte order, as os.endianness() says it, without loading node:os into a short client (bench figure 12). */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** The table writes an address as 32-bit words in host byte order: 4 bytes for IPv4, 16 for IPv6. */
export function procAddressBytes(hex: string): Buffer | undefined {
  if (hex.length !== 8 && hex.length !== 32) return undefined;
  const bytes = Buffer.alloc(hex.length / 2);
  for (let word = 0; word < hex.length / 8; word++) {
    const value = Number.parseInt(hex.slice(word * 8, word * 8 + 8), 16);
    if (LITTLE_ENDIAN) bytes.writeUInt32LE(value, word * 4);
    else bytes.writeUInt32BE(value, word * 4);
  }
  return bytes;
}

/** 127.0.0.1, ::, ::1, fe80::1 (the longest run of zero groups folded, as people write it and as a URL's host serializes it). */
export function formatAddress(bytes: Buffer): string {
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
