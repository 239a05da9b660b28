// Chat agents outliving their host: the parent-death signal that ends an agent with its host, and the next host
// ending what a dead host's chats left running.
import { existsSync } from 'node:fs';
import { endProcesses } from '../pty/end-processes.js';
import { isLive, readStat } from '../proc/proc-fs.js';
import { chatProcesses, type OwnedProcess } from '../pty/session-processes.js';
import { CHAT_HOST_ENV } from '../common/env-names.js';

export { CHAT_HOST_ENV };

/** This process as CHAT_HOST_ENV names it; undefined without /proc (nothing is then found by it either). */
export function chatHostMark(): string | undefined {
  if (mark === null) {
    const stat = process.platform === 'linux' ? readStat(process.pid) : undefined;
    mark = stat ? `${process.pid}:${stat.startTicks}` : undefined;
  }
  return mark;
}
let mark: string | undefined | null = null;

/** util-linux's setpriv, where Debian, Fedora and Arch put it; looked up by absolute path, never on PATH. */
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((file) => process.platform === 'linux' && existsSync(file));

/**
 * The command and arguments that start `file` (absolute) with SIGKILL as its
 * parent-death signal (prctl PR_SET_PDEATHSIG, which Node cannot set): the
 * agent dies the moment its host does, however the host died. setpriv sets it
 * and execs the agent in the same process, so the pid is the agent's. Without
 * setpriv (macOS, a system without util-linux) the agent is started as is,
 * and the next host ends it (endOrphanedChatProcesses).
 */
export function withParentDeathSignal(file: string, args: readonly string[]): { command: string; args: string[] } {
  if (SETPRIV === undefined) return { command: file, args: [...args] };
  return { command: SETPRIV, args: ['--pdeathsig', 'SIGKILL', '--', file, ...args] };
}

/** A process a dead host's chat left running, with the chat's id. */
export interface OrphanedChatProcess extends OwnedProcess {
  chatId: string;
}

/**
 * Processes a chat of a host of `hostId` (its state directory's, beside the
 * chat id in the agent's environment) that is no longer running left: they
 * carry a chat id and a CHAT_HOST_ENV naming a host whose pid is gone or now
 * belongs to a later process. Another state directory's (another host id,
 * a test's) are its own hosts' to end, and left alone. What also carries a
 * PTYDECK_SESSION_ID is a session's, the process watch lists it by that
 * session (a host started inside a tab passes both on), and is left alone. An
 * agent can plant these variables in what it starts, and so have the next
 * host end (or list) its own processes; nothing the developer started carries
 * them. Empty without /proc.
 */
export function orphanedChatProcesses(hostId: string): OrphanedChatProcess[] {
  if (process.platform !== 'linux' || !existsSync('/proc/self/environ')) return [];
  const hosts = new Map<string, boolean>();
  const found: OrphanedChatProcess[] = [];
  // The environments come from what the process scans keep (read once per program), not read afresh each search.
  for (const { chat, ...proc } of chatProcesses()) {
    if (chat.chatHost === undefined || chat.inSession || chat.hostId !== hostId) continue;
    let running = hosts.get(chat.chatHost);
    if (running === undefined) hosts.set(chat.chatHost, (running = hostRunning(chat.chatHost)));
    if (!running) found.push({ ...proc, chatId: chat.chatId });
  }
  return found;
}

/**
 * Ends what dead hosts' chats (of `hostId`) left running (SIGTERM, SIGKILL
 * after `graceMs`), each only while the same process runs. Resolves with
 * those still running.
 */
export function endOrphanedChatProcesses(hostId: string, graceMs: number): Promise<OwnedProcess[]> {
  const orphans = orphanedChatProcesses(hostId);
  return orphans.length === 0 ? Promise.resolve([]) : endProcesses(orphans, graceMs, false);
}

/** Whether the host `<pid>:<start ticks>` still runs; a malformed mark names no host that runs. */
function hostRunning(mark: string): boolean {
  const match = /^(\d+):(\d+)$/.exec(mark);
  if (!match) return false;
  const stat = readStat(Number(match[1]));
  return stat !== undefined && isLive(stat) && stat.startTicks === Number(match[2]);
}
