// Who listens on given TCP ports, for a command that failed on a taken one.
import { commandOf, processesKnown, procPids } from './proc-fs.js';
import { socketInodes } from './socket-descriptors.js';
import { listeningSockets } from './tcp-table.js';

export interface PortHolder {
  port: number;
  /** The process holding a listening socket on the port; null when no process we may look into holds it (another user's). */
  pid: number | null;
  /** Its command line, bounded; null with pid. */
  command: string | null;
}

/**
 * Who listens on each of `ports`, from the kernel's TCP tables and every
 * process's socket descriptors: one entry per port and process (a server
 * on 127.0.0.1 and ::1 is one). Walks every process's descriptors until each
 * listening socket is found, so it is for a command that failed on a taken
 * port, not for a loop. A port nothing listens on is left out; undefined
 * where /proc is missing.
 */
export function portHolders(ports: readonly number[]): PortHolder[] | undefined {
  if (!processesKnown()) return undefined;
  const wanted = new Map<string, number>();
  for (const [inode, socket] of listeningSockets() ?? []) if (ports.includes(socket.port)) wanted.set(inode, socket.port);
  const holders: PortHolder[] = [];
  const add = (port: number, pid: number | null) => {
    if (!holders.some((holder) => holder.port === port && holder.pid === pid)) holders.push({ port, pid, command: pid === null ? null : commandOf(pid) });
  };
  for (const pid of wanted.size === 0 ? [] : procPids()) {
    for (const inode of socketInodes(pid)) {
      const port = wanted.get(inode);
      if (port === undefined) continue;
      add(port, pid);
      wanted.delete(inode);
    }
    if (wanted.size === 0) break;
  }
  for (const port of wanted.values()) if (!holders.some((holder) => holder.port === port)) add(port, null);
  return holders.sort((a, b) => a.port - b.port || (a.pid ?? 0) - (b.pid ?? 0));
}
