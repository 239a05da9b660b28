// The host's /record route: a client that finds server.json not leading to the live host holding host.lock (rewritten,
// removed, opened to others) asks that host, found through the kernel, to write its record back.
import { lstatSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import type { ServerRoute } from '../server/http-server.js';
import { discoveryPath, discoveryText, RECORD_PATH, writeDiscovery, type DiscoveryRecord } from '../common/discovery.js';
import { readUntrustedFileSync } from '../common/untrusted-read.js';

export interface RecordRouteDeps {
  /** What the host wrote in server.json; undefined before it did, or where it writes none. */
  record(): DiscoveryRecord | undefined;
  /** Whether this host still holds host.lock: a host that lost it leaves server.json to the holder. */
  holdsLock(): boolean;
  stateDir: string;
  log(line: string): void;
}

/**
 * POST /record writes the host's own record back to server.json where the file does not hold it, and answers 200; 409
 * where this host has no record to keep. No credential and no judge of the asker: the answer carries nothing, and what
 * is written is the record this host wrote at its start, which only it knows. Before, an agent's unsandboxed shell that
 * rewrote the file (`{}`, a wrong port) or removed it left every client (`ptydeck mcp`, `ls`, `url`, the desktop app)
 * refusing or waiting out its 15 s while the host ran on, until the developer restarted it, ending every live session.
 */
export function recordRoute(deps: RecordRouteDeps): ServerRoute {
  return (req, res, asker) => {
    if (asker.pathname !== RECORD_PATH) return false;
    if (req.method !== 'POST') return answer(res, 405);
    const record = deps.record();
    if (record === undefined || !deps.holdsLock()) return answer(res, 409);
    const path = discoveryPath(deps.stateDir);
    const expected = discoveryText(record);
    if (holds(path, expected)) return answer(res, 200);
    try {
      writeDiscovery(record, deps.stateDir);
    } catch (error) {
      // A state directory opened to others (writeDiscovery refuses it) or gone: the clients say so themselves.
      deps.log(`${path} could not be written back: ${error instanceof Error ? error.message : String(error)}`);
      return answer(res, 409);
    }
    deps.log(`${path} did not hold this host's record (another process changed or removed it); a client asked, and it was written back`);
    return answer(res, 200);
  };
}

/** Whether `path` is a regular file of this user's, open to no one else, holding exactly `expected`. */
function holds(path: string, expected: string): boolean {
  try {
    // The mode as well: a `chmod 644` alone makes every client refuse the file.
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (stat === undefined || !stat.isFile()) return false;
    // Not on Windows, where mode bits mean nothing (as assertPrivateState).
    const uid = process.getuid?.();
    if (uid !== undefined && ((stat.mode & 0o077) !== 0 || stat.uid !== uid)) return false;
    return readUntrustedFileSync(path, Buffer.byteLength(expected) + 1)?.toString('utf8') === expected;
  } catch {
    return false;
  }
}

/** An answer with no body (Content-Length 0, so a client takes it whole at once); true, because the route handled it. */
function answer(res: ServerResponse, status: number): true {
  res.writeHead(status, { 'Cache-Control': 'no-store', 'Content-Length': '0' });
  res.end();
  return true;
}
