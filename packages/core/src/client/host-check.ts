// Whether the server named in server.json is the host, asked of the kernel rather than of the file.
import { procPids, readStat } from '../proc/proc-fs.js';
import { holdsSockets, socketInodes } from '../proc/socket-descriptors.js';
import { formatAddress, listeningRows, procAddressBytes } from '../proc/tcp-table.js';
import { sessionAncestry } from '../common/peer-process.js';
import { hostLockHolder } from '../common/host-lock.js';

/**
 * server.json, host.lock and whatever answers /proof are all things an
 * agent's shell can write or run: a shell that killed the host can rewrite
 * server.json to point at a proxy of its own with a token of its own, and
 * that proxy passes /proof. So before a client sends anything, it asks the
 * kernel who listens on the port server.json names (/proc/net/tcp{,6}, then
 * the /proc/<pid>/fd holding that socket) and requires that process to be the
 * one holding host.lock (the record's pid where none does) and to be judged
 * as /ticket judges a process, the other way round: neither it, its
 * ancestors, nor the leader of its POSIX session carries a session's or a
 * chat's label. A host a client started is started detached (ensure-host.ts):
 * in a POSIX session of its own, adopted by init, without ptydeck's
 * variables, so it passes however deep in a session that client ran.
 */
export type HostCheck =
  /** The process on the port is the host, outside every session. */
  | { kind: 'trusted'; pid: number }
  /** Nothing of this user listens on the port: the record is stale (its pid reused), never a host to talk to. */
  | { kind: 'absent'; reason: string }
  /** Something listens there that is not the host, or the host runs inside a session: talk to it not at all. */
  | { kind: 'refused'; reason: string }
  /** This system cannot say (no /proc, as on macOS): the /proof challenge alone decides. */
  | { kind: 'unknown'; reason: string };

const NO_SESSION_PIDS: ReadonlySet<number> = new Set();

export function checkHostProcess(record: { url: string; pid: number }, stateDir: string): HostCheck {
  if (process.platform !== 'linux') return { kind: 'unknown', reason: 'naming a listening process needs Linux /proc' };
  const url = new URL(record.url);
  const port = Number(url.port || 80);
  const named = addressesNamed(url.hostname);
  if (!named) return { kind: 'refused', reason: `server.json names the host ${url.hostname}, not an IP address: a host writes the address it listens on, and a name is a resolver's to answer, not the kernel's` };
  const listening = listeningRows();
  if (!listening) return { kind: 'unknown', reason: '/proc/net/tcp is not readable' };
  const uid = process.getuid?.();
  /** This user's sockets listening on the port, at any address: whoever holds one is on the port. */
  const inodes = new Set<string>();
  /** Where they listen, for a refusal to name. */
  const addresses = new Set<string>();
  /** Those of them that take a connection to the address server.json names: the one the client makes goes there. */
  const reached = new Set<string>();
  /** Another user's socket that would take that connection. */
  let foreign: string | undefined;
  for (const socket of listening) {
    const [addressHex, portHex] = socket.local.split(':');
    if (socket.inode === '0' || Number.parseInt(portHex ?? '', 16) !== port) continue;
    const bytes = procAddressBytes(addressHex ?? '');
    const address = bytes ? formatAddress(bytes) : undefined;
    const reaches = address !== undefined && takesConnectionTo(address, named);
    if (uid !== undefined && socket.uid !== uid) {
      if (reaches) foreign ??= address;
      continue;
    }
    inodes.add(socket.inode);
    if (address !== undefined) addresses.add(address);
    if (reaches) reached.add(socket.inode);
  }
  if (inodes.size === 0) return { kind: 'absent', reason: `nothing of yours listens on port ${port}` };
  const lock = hostLockHolder(stateDir);
  const host = lock?.pid ?? record.pid;
  // Every socket listening on the port held by the host itself: no other process listens there, since
  // another could only share one of these by inheriting it from the host (whose descriptors are
  // close-on-exec; a child between fork and exec holds a copy for that moment, and is the host's). Then the process table need not be read: with a machine's thousands of
  // processes that read is most of a client's check. Otherwise the table names who else listens.
  const listeners = holdsSockets(host, inodes) ? [host] : procPids().filter((pid) => socketInodes(pid).some((inode) => inodes.has(inode)));
  if (listeners.length === 0) return { kind: 'absent', reason: `no process of yours holds the socket listening on port ${port}` };
  const stranger = listeners.find((pid) => pid !== host);
  if (stranger !== undefined) {
    return {
      kind: 'refused',
      reason: lock
        ? `process ${stranger} listens on port ${port}, which server.json names, but the host for ${stateDir} is process ${lock.pid} (it holds host.lock): server.json was rewritten`
        : `process ${stranger} listens on port ${port}, not process ${record.pid} that server.json names`,
    };
  }
  if (record.pid !== host) return { kind: 'refused', reason: `server.json names process ${record.pid}, but process ${host} holds host.lock and listens on port ${port}` };
  // The host holds the port, but the connection goes by the address too: to another user's socket there, or to
  // another machine, if server.json was rewritten to name one with the host's port.
  if (foreign !== undefined) return { kind: 'refused', reason: `another user's socket listens at ${foreign} port ${port}, which server.json names` };
  if (reached.size === 0) {
    const at = [...addresses].join(' and ');
    return { kind: 'refused', reason: `server.json names ${named.join(' or ')} port ${port}, where the host (pid ${host}) does not listen (it listens at ${at}): server.json was rewritten` };
  }
  const inside = insideSession(host);
  if (inside) return { kind: 'refused', reason: `the process listening on port ${port} (pid ${host}) runs inside a ptydeck session or chat: ${inside}` };
  return { kind: 'trusted', pid: host };
}

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/**
 * The addresses a client connects to for a URL's hostname, as the table
 * writes them (formatAddress): an IPv4 or bracketed IPv6 literal, which the
 * URL parser has put in that form already, or `localhost`, which is this
 * machine's loopback by /etc/hosts, root's to write. Undefined for any other
 * name: what it resolves to is a resolver's answer, which nothing here checks.
 */
function addressesNamed(hostname: string): string[] | undefined {
  if (hostname === 'localhost') return ['127.0.0.1', '::1'];
  if (IPV4.test(hostname)) return [hostname];
  if (hostname.startsWith('[') && hostname.endsWith(']')) return [hostname.slice(1, -1)];
  return undefined;
}

/**
 * Whether a socket listening at `address` takes a connection to one of
 * `named`: the same address, the wildcard of its family, or for IPv4 the
 * IPv6 wildcard (a dual-stack socket) and the IPv4-mapped form.
 */
function takesConnectionTo(address: string, named: readonly string[]): boolean {
  return named.some((target) => {
    if (address === target || address === '::') return true;
    if (!IPV4.test(target)) return false;
    if (address === '0.0.0.0') return true;
    const [a, b, c, d] = target.split('.').map(Number) as [number, number, number, number];
    return address === `::ffff:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  });
}

/**
 * Why `pid` counts as started inside a session or a chat: the /ticket judge
 * on it and its ancestors, and on the leader of its POSIX session, which a
 * session's background job keeps after the shell that started it is gone.
 * A POSIX session whose leader is gone cannot be vouched for: a process left
 * behind by a session's shell (the host's death hangs that shell up) is in
 * exactly such a one.
 */
function insideSession(pid: number): string | undefined {
  const stat = readStat(pid);
  if (!stat) return `process ${pid} could not be inspected`;
  const own = sessionAncestry(pid, NO_SESSION_PIDS);
  if (own) return own;
  // sid 0: no session at all (a container's init and its kin); pid === sid: a leader, judged above.
  if (stat.sid <= 1 || stat.sid === pid) return undefined;
  const leader = readStat(stat.sid);
  if (!leader || leader.sid !== stat.sid || leader.state === 'Z') {
    return `process ${pid} is in the POSIX session ${stat.sid}, whose leader is gone (a shell that ended leaves its jobs there)`;
  }
  return sessionAncestry(stat.sid, NO_SESSION_PIDS);
}

