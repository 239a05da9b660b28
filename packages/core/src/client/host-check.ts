// Whether the server named in server.json is the host, asked of the kernel rather than of the file.
import { holdsSockets, procPids, readStat, socketInodes } from '../proc/proc-fs.js';
import { listeningRows } from '../proc/tcp-table.js';
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
  const port = Number(new URL(record.url).port);
  const listening = listeningRows();
  if (!listening) return { kind: 'unknown', reason: '/proc/net/tcp is not readable' };
  const uid = process.getuid?.();
  const inodes = new Set<string>();
  for (const socket of listening) {
    if (socket.inode === '0' || (uid !== undefined && socket.uid !== uid)) continue;
    if (Number.parseInt(socket.local.split(':')[1] ?? '', 16) === port) inodes.add(socket.inode);
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
  const inside = insideSession(host);
  if (inside) return { kind: 'refused', reason: `the process listening on port ${port} (pid ${host}) runs inside a ptydeck session or chat: ${inside}` };
  return { kind: 'trusted', pid: host };
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

