// "Who holds the port" for a command that failed on a taken one, within the fence between agents.
import { portHolders } from '../proc/port-holders.js';
import { sessionsOf } from '../pty/session-processes.js';
import type { PtyService } from '../pty/types.js';
import type { OwnedSessions } from './owned-sessions.js';
import { isSandboxed, pidViewOf } from './pid-view.js';
import type { PortInUse } from './results.js';

/**
 * "Who holds the port" for a command that failed on a taken one: the port is
 * read from the failure's words, the holder from the kernel's tables (never
 * guessed), so an agent sees the server it would have duplicated and stops.
 *
 * What crosses the fence (owned-sessions.ts): a holder in one of the caller's
 * own terminals comes with its pid (as its shell sees it: in a sandbox, the
 * sandbox's pid), command and terminal id (owner "you");
 * one outside ptydeck with its pid and command, which any process of the
 * user can read in /proc anyway (owner "outside ptydeck"; pid null for
 * another user's process). A holder in another agent's terminal, the
 * developer's, or a ptydeck terminal already closed is named by its owner
 * only: no terminal id, pid or command line, which may carry the other
 * side's secrets and would let one agent end another's server.
 */

/** The forms servers use: Node and Go (EADDRINUSE, "address already in use"), Python ("Address already in use"), Vite and Next ("Port 5173 is already in use"), Flask and create-react-app. */
const IN_USE = /EADDRINUSE|address already in use|\bport\s+\d{1,5}\s+is\s+(?:already\s+)?in\s+use|already running on port/i;
/** Where a port stands in those lines: "port 3000", "127.0.0.1:3000", ":::3000", "tcp :8080:", "('127.0.0.1', 8000)". */
const PORT_IN_LINE = /\bport\s*[=:]?\s*(\d{1,5})\b|[\w\]]?:(\d{1,5})(?![\d.])|,\s*(\d{1,5})\)/gi;
/** A number in the command line that could name a port: Python's message names none. */
const PORT_IN_COMMAND = /(?<![\w.-])(\d{2,5})(?![\w.])/g;
/** Candidates looked up at most: more is not a port conflict but a log of numbers. */
const MAX_CANDIDATES = 8;

export const OUTSIDE_PTYDECK = 'outside ptydeck';
export const YOU = 'you';
export const THE_DEVELOPER = 'the developer';
export const CLOSED_TERMINAL = 'a closed ptydeck terminal';

/** The ports a failure in `output` says are taken, and who holds each; undefined when it says none (or /proc is missing). */
/** Whether the output may say a port is taken: without it, portsInUse finds nothing and reads nothing. */
export function mayNamePortInUse(output: string): boolean {
  return IN_USE.test(output);
}

export function portsInUse(output: string, command: string | undefined, service: PtyService, owned: OwnedSessions, caller: string): PortInUse[] | undefined {
  if (!IN_USE.test(output)) return undefined;
  const candidates = namedPorts(output, command);
  if (candidates.length === 0) return undefined;
  const holders = portHolders(candidates);
  if (!holders || holders.length === 0) return undefined;
  const sessions = service.list().map((info) => ({ id: info.id, pid: info.pid, running: info.status !== 'exited' }));
  const whose = sessionsOf(
    service.labels,
    holders.flatMap((holder) => (holder.pid === null ? [] : [holder.pid])),
    sessions,
  );
  return holders.map(({ port, pid, command: holderCommand }) => {
    const id = pid === null ? undefined : whose.get(pid);
    if (pid === null || id === undefined) return { port, pid, command: holderCommand, session: null, owner: OUTSIDE_PTYDECK };
    const info = service.get(id);
    if (owned.get(id)?.ownerId === caller) {
      return { port, pid: pidViewOf(isSandboxed(info))(pid) ?? null, command: holderCommand, session: id, owner: YOU };
    }
    const owner = !info ? CLOSED_TERMINAL : info.source === 'user' ? THE_DEVELOPER : (info.ownerName ?? 'another agent');
    return { port, pid: null, command: null, session: null, owner };
  });
}

/** Ports named on the lines that say one is taken; else, when those lines name none, numbers in the command. */
export function namedPorts(output: string, command: string | undefined): number[] {
  const ports = new Set<number>();
  for (const line of output.split('\n')) {
    if (!IN_USE.test(line)) continue;
    for (const match of line.matchAll(PORT_IN_LINE)) ports.add(Number(match[1] ?? match[2] ?? match[3]));
  }
  if (ports.size === 0 && command !== undefined) for (const match of command.matchAll(PORT_IN_COMMAND)) ports.add(Number(match[1]));
  return [...ports].filter((port) => port > 0 && port < 65536).slice(0, MAX_CANDIDATES);
}
