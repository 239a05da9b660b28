// A client whose server.json does not lead to the live host holding host.lock asks that host, found through the
// kernel, to write its record back (host/record-route.ts), rather than refusing until the developer restarts it.
import { RECORD_PATH } from '../common/discovery.js';
import { socketInodes } from '../proc/socket-descriptors.js';
import { listeningSockets, reachableHost } from '../proc/tcp-table.js';
import { requestJson } from './host-request.js';

const ASK_MS = 1500;

/**
 * Asks process `pid` (host.lock's holder) on each TCP port it listens on, as the kernel says (its /proc/<pid>/fd and
 * /proc/net/tcp), to write its record back. True where one answered that it did or that the file holds it already. The
 * request carries no secret and nothing of its answer is trusted: the record is read again and checked as any is
 * (host-check.ts, the proof), so a process that took the lock writes nothing a client then follows. False without
 * /proc (macOS), where the developer restarts the host as before.
 */
export async function askHostForRecord(pid: number): Promise<boolean> {
  const listening = listeningSockets();
  if (listening === undefined) return false;
  for (const inode of socketInodes(pid)) {
    const socket = listening.get(inode);
    if (socket === undefined) continue;
    try {
      const answer = await requestJson(new URL(RECORD_PATH, `http://${reachableHost(socket.address)}:${socket.port}`), { method: 'POST', timeoutMs: ASK_MS });
      if (answer.status === 200) return true;
    } catch {
      // Not the host's HTTP port, or not answering: the next one.
    }
  }
  return false;
}
