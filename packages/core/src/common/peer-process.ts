// Who is at the other end of a loopback connection, and whether it runs inside one of ptydeck's sessions.
import { isIPv4, isIPv6 } from 'node:net';
import { holdsSocket } from '../proc/socket-descriptors.js';
import { namespacePids, procPids, readOptional, readStat, readStatTable, type StatHandles, type StatTable } from '../proc/proc-fs.js';
import { procAddressBytes, scanTcpTable, TCP_TABLE_PATHS } from '../proc/tcp-table.js';
import { CHAT_ID_ENV, SESSION_ID_ENV } from './env-names.js';

/**
 * Who is at the other end of a loopback TCP connection, and whether it runs
 * inside one of ptydeck's sessions. `ptydeck url` carries no secret (any
 * secret it could read, a process in an agent's shell could read too), so the
 * server decides by the asking process instead: Linux names it in /proc.
 *
 * The connection's client socket is found in /proc/net/tcp{,6} (its uid and
 * inode), the processes holding that inode through the /proc/<pid>/fd links
 * this user can read, then each holder and every ancestor up the ppid chain
 * is checked: not a process ptydeck started for a session or a chat, not in
 * such a process's POSIX session (node-pty starts every session with setsid, and
 * a chat's agent is started detached, so their pid is also their sid), and no
 * PTYDECK_SESSION_ID or PTYDECK_CHAT_ID in its environment. A process that leaves on purpose (setsid, a double fork that
 * reparents it to init, a scrubbed environment) passes; see docs/security.md's
 * threat model for why that is accepted.
 */

/** The connection as the server's socket sees it. */
export interface PeerSocket {
  remoteAddress?: string;
  remotePort?: number;
  localAddress?: string;
  localPort?: number;
}

export type PeerVerdict =
  /** Every process holding the connection is outside every session. */
  | { kind: 'outside'; pids: number[] }
  /** The asker runs inside a session, belongs to another user, or cannot be named. */
  | { kind: 'refused'; reason: string }
  /** This system cannot name the asker (no /proc): the caller must not hand it a link. */
  | { kind: 'unknown'; reason: string };

/**
 * Decides about one connection, given the pid of every session and chat agent
 * the server started, and the pid the request names as its sender, if any
 * (ASKER_PID_HEADER): then that process must hold the connection, by the
 * kernel's word, and is the one judged; no other process is judged. (A sender
 * in a PID namespace of its own names its pid there: see claimantInAnotherNamespace.)
 */
export type PeerJudge = (socket: PeerSocket, sessionPids: ReadonlySet<number>, claimedPid?: number, early?: EarlyLook) => PeerVerdict;

/**
 * What the kernel says of a connection before its request names a sender: the
 * client socket's row in /proc/net/tcp (its uid and inode, fixed for as long as
 * the connection lasts), and which process in a session holds that socket, if
 * any. A server takes it as it accepts the connection, while the client is
 * still writing its request, so a judgement made when the request comes reads
 * only the claimed sender's own files (bench figure 12: the table walk and the
 * read of every process's stat were most of the host's part of `ptydeck ls`).
 */
export interface EarlyLook {
  client: ConnectionRow;
  /** A process in a session's tree or POSIX session that held the socket when the look was taken (sessionProcessHolding). */
  insideHolder: number | undefined;
  /**
   * Every process's stat line as the look read them (none is read while no session runs), which the server offers to
   * the scan its request's answer takes (offerStatTable): `ptydeck ls`'s look at the sessions' ports then reads none.
   */
  table?: StatTable;
}

/**
 * Takes the early look at an accepted connection (undefined where /proc cannot tell, or the connection is gone).
 * `stats`, the caller's, keeps every process's stat file open between looks (StatHandles).
 */
export type EarlyLooker = (socket: PeerSocket, sessionPids: ReadonlySet<number>, stats?: StatHandles) => EarlyLook | undefined;

export const lookEarlyFromProc: EarlyLooker = (socket, sessionPids, stats) => {
  if (process.platform !== 'linux') return undefined;
  const client = clientRow(socket);
  // Gone, unreadable, or not in the table (yet): the judgement looks for itself.
  if (typeof client !== 'object') return undefined;
  const table = sessionPids.size === 0 ? undefined : readStatTable(stats);
  return { client, insideHolder: sessionProcessHolding(client.inode, sessionPids, table), ...(table ? { table } : {}) };
};

/**
 * Variables that mark a process as started by ptydeck for something semi-trusted:
 * buildSessionEnv sets the first in every session, a chat sets the second in its
 * agent's environment. Children inherit them unless they scrub their environment.
 */
const INSIDE_ENV_PREFIXES = [`${SESSION_ID_ENV}=`, `${CHAT_ID_ENV}=`];
/**
 * Deeper than any real process tree; a bound against a corrupt or looping ppid chain. A chain that goes on past it
 * counts as inside: each level may be a POSIX session of its own, so the session that started it is only found at
 * the chain's top (a sandboxed shell's `env -i setsid -w setsid -w ...` 300 deep got a panel link, where no sandboxed
 * process can otherwise leave its session's tree: sandbox/sandboxed-shells.test.ts).
 */
const MAX_ANCESTRY = 256;

export const judgePeerFromProc: PeerJudge = (socket, sessionPids, claimedPid, early) => {
  const found = peerHolders(socket, claimedPid, early?.client);
  if (found.kind !== 'found') return found;
  for (const pid of found.pids) {
    const inside = sessionAncestry(pid, sessionPids);
    if (inside) return { kind: 'refused', reason: inside };
  }
  // A claim names one holder of the socket, and the one judged above; a process inside a session may
  // hold it too (it connected, then forked one that left the session, or passed it one over SCM_RIGHTS)
  // and be the one reading the answer. None may.
  if (claimedPid !== undefined) {
    // Taken as the connection was accepted, when the process that connected held the socket already: one in a
    // session that hands it on afterwards, as below, was holding it then (docs/security.md).
    const inside = early ? early.insideHolder : sessionProcessHolding(found.inode, sessionPids, sessionPids.size === 0 ? undefined : readStatTable());
    if (inside !== undefined) return { kind: 'refused', reason: `process ${inside}, inside a ptydeck session, holds the connection too` };
  }
  return { kind: 'outside', pids: found.pids };
};

export type LineageVerdict =
  /** Every process holding the connection descends from the root. */
  | { kind: 'descends'; pids: number[] }
  | { kind: 'refused'; reason: string }
  | { kind: 'unknown'; reason: string };

/** Whether the process at the other end of a connection was started, directly or not, by process `root`. */
export type LineageJudge = (socket: PeerSocket, root: number) => LineageVerdict;

/**
 * Descent from `root`: `root` is on the holder's ppid chain, or the holder is in
 * `root`'s POSIX session (root was started with setsid, so a child that was
 * reparented to init still carries its session id). Nothing the holder can read
 * or forge decides it: the kernel keeps both.
 */
export const peerDescendsFromProc: LineageJudge = (socket, root) => {
  const found = peerHolders(socket);
  if (found.kind !== 'found') return found;
  for (const pid of found.pids) {
    if (!descendsFrom(pid, root)) return { kind: 'refused', reason: `process ${pid} was not started by process ${root}` };
  }
  return { kind: 'descends', pids: found.pids };
};

type Holders = { kind: 'found'; pids: number[]; inode: string } | { kind: 'refused'; reason: string } | { kind: 'unknown'; reason: string };

/**
 * The processes of this user holding the client end of the connection. With a
 * claimed pid, that process alone, if the kernel says it holds the connection
 * (its descriptor table has the socket's inode), or a holder that is that pid
 * in a PID namespace of its own; a claim that is neither is refused. Verifying
 * one process's descriptors is what the claim buys: searching every process's
 * was most of what `ptydeck ls` waited for, and grows with the machine's
 * process count (bench figure 12). Other
 * holders of the same socket are not looked for: one can only come by
 * inheriting it or being passed it, so it descends from the claimant or was
 * handed the socket by a process that left its session on purpose, which
 * passes either way (docs/security.md).
 */
function peerHolders(socket: PeerSocket, claimedPid?: number, known?: ConnectionRow): Holders {
  if (process.platform !== 'linux') return { kind: 'unknown', reason: 'process lookup needs Linux /proc' };
  const client = known ?? clientRow(socket);
  if (client === 'gone') return { kind: 'refused', reason: 'the connection is already gone' };
  if (client === 'unreadable') return { kind: 'unknown', reason: '/proc/net/tcp is not readable' };
  if (!client) return { kind: 'refused', reason: 'the connection is not in /proc/net/tcp' };
  const uid = process.getuid?.();
  if (uid !== undefined && client.uid !== uid) return { kind: 'refused', reason: `the asking process belongs to uid ${client.uid}` };
  if (claimedPid !== undefined) {
    if (!Number.isSafeInteger(claimedPid) || claimedPid <= 0) return { kind: 'refused', reason: 'the request names its sender with what is not a pid' };
    if (holdsSocket(claimedPid, client.inode)) return { kind: 'found', pids: [claimedPid], inode: client.inode };
    return claimantInAnotherNamespace(claimedPid, client.inode);
  }
  const pids = pidsHoldingSocket(client.inode);
  if (pids.length === 0) return { kind: 'refused', reason: 'no process of this user holds the connection' };
  return { kind: 'found', pids, inode: client.inode };
}

/**
 * A claim this /proc does not confirm. The sender may run in a PID namespace
 * below the host's (a container sharing the user, `unshare -p`, bubblewrap's
 * --unshare-pid), where the pid it knows itself by is not the one this /proc
 * gives it. The kernel still says who holds the socket (the descriptor tables
 * here), and each holder's NSpid line its pid in every namespace from this
 * /proc's down to its own: a holder whose own pid (the last) is the claim is
 * the sender, and is judged by the pid this /proc gives it. The claim picks
 * among the kernel's holders, as it does above; it never adds one. This costs
 * the search of every process a claim saves, but only where a claim fails.
 */
function claimantInAnotherNamespace(claimedPid: number, inode: string): Holders {
  const holders = pidsHoldingSocket(inode);
  const named = holders.filter((pid) => {
    const chain = namespacePids(pid);
    return chain !== undefined && chain.length > 1 && chain.at(-1) === claimedPid;
  });
  if (named.length > 0) return { kind: 'found', pids: named, inode };
  const claim = `process ${claimedPid}, which the request names as its sender, does not hold the connection`;
  if (holders.length === 0) {
    return {
      kind: 'refused',
      reason: `${claim}, and no process whose descriptors this host can read does: the sender may run in a PID namespace this host's /proc does not show (a host inside a container, asked from outside it), where its pid cannot be verified`,
    };
  }
  const holding = `${holders.length === 1 ? 'process' : 'processes'} ${holders.join(', ')}`;
  return { kind: 'refused', reason: `${claim}: the kernel names ${holding} as holding it, and none is process ${claimedPid} in a PID namespace of its own` };
}

/**
 * Why `pid` counts as inside a session or a chat, or undefined when neither it
 * nor any ancestor does. Clients judge the host's process with it too (with no
 * session pids: they do not know the host's), so a host that an agent's shell
 * started does not pass for the developer's.
 */
export function sessionAncestry(pid: number, sessionPids: ReadonlySet<number>): string | undefined {
  let current = pid;
  for (let depth = 0; current > 1 && depth < MAX_ANCESTRY; depth++) {
    // The server itself is no session; its own ancestry (the developer's terminal) is not ours to judge.
    if (current === process.pid) return undefined;
    if (sessionPids.has(current)) return `process ${current} is a process ptydeck started for a session or a chat`;
    const stat = readStat(current);
    // A process that exited while we looked cannot be vouched for.
    if (!stat) return `process ${current} could not be inspected`;
    if (sessionPids.has(stat.sid)) return `process ${current} is in the POSIX session of a process ptydeck started for a session or a chat (${stat.sid})`;
    const environ = readOptional(`/proc/${current}/environ`);
    if (environ === undefined) {
      // The kernel hides the environment of another user's process and of one that changed credentials: sshd's
      // session processes above every `ptydeck ls` run over ssh, sudo. Such a process is judged by its pid and
      // POSIX session (above) alone: a marker hidden in it gains an agent nothing `setsid env -i` does not.
      if (!readStat(current)) return `process ${current} could not be inspected`;
    } else {
      const marker = environ.split('\0').find((entry) => INSIDE_ENV_PREFIXES.some((prefix) => entry.startsWith(prefix)));
      if (marker) return `process ${current} carries ${marker.slice(0, marker.indexOf('='))}`;
    }
    current = stat.ppid;
  }
  return current > 1 ? `process ${pid} has more than ${MAX_ANCESTRY} ancestors, which only a chain made to hide its start has` : undefined;
}

/**
 * A process in a session's tree or POSIX session (as the kernel's parent links and
 * session ids say) that holds the socket `inode`, if any. `table`, every process's stat
 * line read for this look, finds the sessions' processes; only their descriptor tables are read, which keeps
 * a claimed pid's saving (bench figure 12). A holder that left both the tree and the
 * POSIX session is not looked for: it left on purpose, and passes on its own anyway.
 */
function sessionProcessHolding(inode: string, sessionPids: ReadonlySet<number>, table: StatTable | undefined): number | undefined {
  if (sessionPids.size === 0 || !table) return undefined;
  const parents = new Map<number, number>();
  for (const [pid, stat] of table.stats) parents.set(pid, sessionPids.has(stat.sid) ? -1 : stat.ppid);
  const inside = new Map<number, boolean>();
  const isInside = (pid: number): boolean => {
    const chain: number[] = [];
    let current = pid;
    // Past MAX_ANCESTRY with no end found: inside, as sessionAncestry judges it.
    let verdict = true;
    for (let depth = 0; depth < MAX_ANCESTRY; depth++) {
      const known = inside.get(current);
      if (known !== undefined) {
        verdict = known;
        break;
      }
      const parent = parents.get(current);
      if (sessionPids.has(current) || parent === -1) {
        verdict = true;
        break;
      }
      chain.push(current);
      if (parent === undefined || parent <= 1) {
        verdict = false;
        break;
      }
      current = parent;
    }
    // A chain cut at the bound says nothing of where its upper processes stand: only the one asked about is judged.
    if (chain.length < MAX_ANCESTRY) for (const pid of chain) inside.set(pid, verdict);
    return verdict;
  };
  for (const pid of parents.keys()) {
    if (pid !== process.pid && isInside(pid) && holdsSocket(pid, inode)) return pid;
  }
  return undefined;
}

/** Whether `pid` is `root`, descends from it, or is in its POSIX session, by the kernel's parent links. */
export function descendsFrom(pid: number, root: number): boolean {
  let current = pid;
  for (let depth = 0; current > 1 && depth < MAX_ANCESTRY; depth++) {
    if (current === root) return true;
    const stat = readStat(current);
    if (!stat) return false;
    if (stat.sid === root) return true;
    current = stat.ppid;
  }
  return false;
}

/** Every pid whose descriptor table holds the socket `inode` (only this user's processes are readable, unless root). */
export function pidsHoldingSocket(inode: string): number[] {
  return procPids().filter((pid) => holdsSocket(pid, inode));
}

interface Endpoint {
  address: string;
  port: number;
}

/** The client end of a connection in /proc/net/tcp: who owns it, and the inode its holders' descriptors name. */
export interface ConnectionRow {
  uid: number;
  inode: string;
}

/** The connection's client socket, as the server's socket names its ends. */
function clientRow(socket: PeerSocket): ConnectionRow | undefined | 'unreadable' | 'gone' {
  const { remoteAddress, remotePort, localAddress, localPort } = socket;
  if (!remoteAddress || !remotePort || !localAddress || !localPort) return 'gone';
  // The asker's socket: its local end is our remote end, and the other way round.
  return findConnection({ address: remoteAddress, port: remotePort }, { address: localAddress, port: localPort });
}

/**
 * The established socket whose local end is `local` and remote end `remote`,
 * from /proc/net/tcp, then /proc/net/tcp6 only when not there (a socket is in
 * one table, and a client of the host's IPv4 loopback address is in the
 * first), each read only as far as the socket: reading a table to its end
 * walks the kernel's whole connection hash twice, which was most of what
 * judging an asker cost (bench figure 12).
 */
function findConnection(local: Endpoint, remote: Endpoint): ConnectionRow | undefined | 'unreadable' {
  const wantLocal = endpointKey(local);
  const wantRemote = endpointKey(remote);
  if (!wantLocal || !wantRemote) return undefined;
  // The ports as the table writes them: rows with other ports are passed over before their addresses are decoded.
  const localPort = tablePort(local.port);
  const remotePort = tablePort(remote.port);
  // Each end is followed by a space in its row: a row without both is not parsed (a table full of TIME_WAIT rows from
  // earlier connections is mostly such rows).
  const localEnd = `${localPort} `;
  const remoteEnd = `${remotePort} `;
  const mayMatch = (row: string) => row.includes(localEnd) && row.includes(remoteEnd);
  let readable = false;
  for (const path of TCP_TABLE_PATHS) {
    let found: ConnectionRow | undefined;
    readable =
      scanTcpTable(
        path,
        (socket) => {
          // An inode of 0: not attached to a descriptor (e.g. TIME_WAIT).
          if (socket.inode === '0' || !socket.local.endsWith(localPort) || !socket.remote.endsWith(remotePort)) return false;
          if (procEndpointKey(socket.local) !== wantLocal || procEndpointKey(socket.remote) !== wantRemote) return false;
          found = { uid: socket.uid, inode: socket.inode };
          return true;
        },
        mayMatch,
      ) || readable;
    if (found) return found;
  }
  return readable ? undefined : 'unreadable';
}

/** "address:port" with the address as 16 bytes of hex, IPv4 as IPv4-mapped IPv6, so both tables compare alike. */
function endpointKey({ address, port }: Endpoint): string | undefined {
  const bytes = addressHex(address);
  return bytes === undefined ? undefined : `${bytes}:${port}`;
}

/** ":PORT" as /proc/net/tcp ends an endpoint with it: four upper-case hex digits. */
function tablePort(port: number): string {
  return `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** /proc/net/tcp writes an address as 32-bit words in host byte order, then ":PORT" in hex. */
function procEndpointKey(field: string): string | undefined {
  const [hex, portHex] = field.split(':');
  const bytes = hex === undefined ? undefined : procAddressBytes(hex);
  if (!bytes || !portHex) return undefined;
  const mapped = bytes.length === 4 ? Buffer.concat([IPV4_MAPPED_PREFIX, bytes]) : bytes;
  return `${mapped.toString('hex')}:${Number.parseInt(portHex, 16)}`;
}

const IPV4_MAPPED_PREFIX = Buffer.from('00000000000000000000ffff', 'hex');

/** The 16 bytes of an IPv4 or IPv6 address in hex (IPv4 mapped), or undefined if it is neither. */
function addressHex(address: string): string | undefined {
  const bare = address.replace(/%.*$/, ''); // a zone id is not part of the address
  if (isIPv4(bare)) return IPV4_MAPPED_PREFIX.toString('hex') + Buffer.from(bare.split('.').map(Number)).toString('hex');
  if (!isIPv6(bare)) return undefined;
  let text = bare;
  // An embedded IPv4 tail (::ffff:127.0.0.1) becomes two hex groups.
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const [a, b, c, d] = tail[1]!.split('.').map(Number) as [number, number, number, number];
    text = text.slice(0, tail.index) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = rest ? rest.split(':') : [];
  const zeros = rest === undefined ? 0 : 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...Array<string>(zeros).fill('0'), ...tailGroups];
  return groups.map((group) => group.padStart(4, '0')).join('').toLowerCase();
}
