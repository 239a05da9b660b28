// What an agent's sessions run and listen on, for the tool's results, and ending what a closed session left.
import { processesKnown } from '../proc/proc-fs.js';
import { endProcesses, endSessionLeftovers, unionOf } from '../pty/end-processes.js';
import { sessionLeftovers, snapshotSession, snapshotSessionsInTurns, stillRunning, type OwnedPort, type OwnedProcess, type SessionRef } from '../pty/session-processes.js';
import { backgroundProcesses, launcherPids, wrappedProgram } from '../pty/wrapped-program.js';
import { listeningSockets, TcpFingerprint } from '../proc/tcp-table.js';
import type { LabelReader } from '../pty/session-labels.js';
import { pidViewOf, type PidView } from './pid-view.js';
import type { ClosedProcesses, ListedPort, ListedProcess } from './results.js';

/** How long a detached process gets after SIGTERM before SIGKILL, when terminal_close ends what survived the service's close. */
const LEFTOVER_GRACE_MS = 3000;

/**
 * What the agent's sessions run and listen on, for the tool's results: each
 * session's listening ports and background processes, the ports a result has
 * not told the agent of yet (`ports_opened`, `until: "port"`), and ending a
 * closed session's detached processes. The process table is scanned only when
 * a result asks, and only when the kernel's socket tables show a listening
 * socket that was not there at the last look; those tables are read only when
 * the count of TCP sockets in use changed since (TcpFingerprint): reading them
 * costs 3 ms or more a file, which every terminal_run would otherwise pay. A
 * listener that opens while another socket closes leaves the count as it was:
 * such a port is missed in run and wait results, and terminal_list shows it;
 * a wait until a port opens reads the tables at each of its looks.
 * Every pid in them is the one the session's own shell sees (pid-view.ts):
 * in a sandbox, its pid in the sandbox's PID namespace.
 */
export class OwnedProcesses {
  /** Per session, the inodes of its listening sockets results have reported. */
  private readonly told = new Map<string, Set<string>>();
  /** Per session, every listening socket on the machine at its last look: nothing new there means no new port. */
  private readonly seen = new Map<string, Set<string>>();
  /** Per session, the TCP socket count at its last look: unchanged, nothing new can listen. */
  private readonly fingerprints = new Map<string, string | undefined>();
  /** The TCP socket count, read through descriptors kept for it: every result looks. */
  private readonly tcp = new TcpFingerprint();

  constructor(
    private readonly labels: LabelReader,
    /** Whether the service still has the session: a look that ends after its removal (forget()) notes nothing of it. */
    private readonly present: (sessionId: string) => boolean,
  ) {}

  /**
   * Each session's listening ports and background processes (all reported to the agent); undefined without /proc.
   * The process table is read a slice at a time with `yieldTurn` between (snapshotSessionsInTurns): in one turn,
   * a terminal_list held the host's loop for every other session and panel while it read the whole table (4 to
   * 21 ms of CPU with bench figure 11's 1300 processes on a loaded machine, bench/list-turns.mjs). Every process /proc lists as the call
   * begins is looked at, so a job started before the call is listed and one ended before it is not.
   */
  async list(sessions: readonly SessionRef[], yieldTurn: () => Promise<void>): Promise<Map<string, { ports: ListedPort[]; background: ListedProcess[] }> | undefined> {
    const snapshots = await snapshotSessionsInTurns(this.labels, sessions, {}, yieldTurn);
    if (!snapshots) return undefined;
    const listed = new Map<string, { ports: ListedPort[]; background: ListedProcess[] }>();
    for (const session of sessions) {
      const snapshot = snapshots.get(session.id)!;
      this.report(session.id, snapshot.ports, snapshot.ports);
      const view = viewOf(session);
      listed.set(session.id, { ports: snapshot.ports.flatMap(portField(view)), background: backgroundProcesses(session, snapshot).flatMap(processField(view)) });
    }
    return listed;
  }

  /**
   * Whether openedInTurns() would report nothing without reading more than the TCP
   * socket count (unchanged since the session's last look): then a result
   * needs no turn of the event loop for its ports.
   */
  nothingOpened(session: SessionRef, fingerprint = this.tcp.read()): boolean {
    if (!processesKnown() || !this.fingerprints.has(session.id)) return false;
    const last = this.fingerprints.get(session.id);
    return last !== undefined && fingerprint === last;
  }

  /**
   * The session's listening ports no result has reported yet, now reported;
   * undefined without /proc. When it has to look (a listening socket new to
   * the session's last look), the process table is read a slice at a time
   * with `yieldTurn` between (snapshotSessionsInTurns), and its processes are
   * attributed in a turn that reads nothing but the TCP tables: a server that
   * listened before the call is found, as /proc lists it as the look begins.
   * With `exact` the socket tables are read even when the TCP socket count
   * has not moved: a wait for a port, whose answer is the port, must not miss
   * a listener that opened while another socket closed (it would wait out its
   * timeout on a quiet machine).
   */
  async openedInTurns(session: SessionRef, yieldTurn: () => Promise<void>, exact = false): Promise<ListedPort[] | undefined> {
    // Unchanged, the one count read (two /proc files) serves both: a terminal_run read it twice per result.
    const look = this.mayHaveOpened(session, exact, this.tcp.read());
    if (look !== 'look') return look;
    const snapshots = await snapshotSessionsInTurns(this.labels, [session], {}, yieldTurn);
    return this.tellOpened(session, snapshots?.get(session.id)?.ports ?? []);
  }

  /**
   * Whether openedInTurns() has to look at the process table ('look'), or what it
   * says without: nothing new listens on the machine since the session's last
   * look (or, unless `exact`, the TCP socket count has not moved), or
   * undefined without /proc.
   */
  private mayHaveOpened(session: SessionRef, exact: boolean, fingerprint: string | undefined): ListedPort[] | undefined | 'look' {
    if (!processesKnown()) return undefined;
    // Removed while its result was built: nothing to look at, and nothing of it to keep.
    if (!this.present(session.id)) return [];
    const looked = this.fingerprints.has(session.id);
    const last = this.fingerprints.get(session.id);
    this.fingerprints.set(session.id, fingerprint);
    if (!exact && looked && fingerprint !== undefined && fingerprint === last) return [];
    const listening = listeningSockets();
    if (!listening) return undefined;
    const seen = this.seen.get(session.id);
    this.seen.set(session.id, new Set(listening.keys()));
    if (seen && [...listening.keys()].every((inode) => seen.has(inode))) return [];
    return 'look';
  }

  /** Of the session's listening `ports`, those no result has reported yet, now reported. */
  private tellOpened(session: SessionRef, ports: readonly OwnedPort[]): ListedPort[] {
    const told = this.told.get(session.id);
    const fresh = ports.filter((port) => !told?.has(port.inode));
    this.report(session.id, ports, fresh);
    return fresh.flatMap(portField(viewOf(session)));
  }

  /** Port `port` when the session listens on it (reported now), else nothing; the process table read as openedInTurns reads it. */
  async listeningInTurns(session: SessionRef, port: number, yieldTurn: () => Promise<void>): Promise<ListedPort[]> {
    const listening = listeningSockets();
    if (![...(listening?.values() ?? [])].some((socket) => socket.port === port)) return [];
    const snapshots = await snapshotSessionsInTurns(this.labels, [session], {}, yieldTurn);
    const ports = snapshots?.get(session.id)?.ports ?? [];
    const mine = ports.filter((socket) => socket.port === port);
    this.report(session.id, ports, mine);
    return mine.flatMap(portField(viewOf(session)));
  }

  /**
   * The pid of the session's program as its own shell sees it (`$$`): in a
   * sandbox, the program bubblewrap started, by its pid there (null until it
   * has started, or once it ended); else the session's process.
   */
  programPid(session: SessionRef): number | null {
    if (!session.wrapped) return session.pid;
    const program = wrappedProgram(this.labels, session);
    return (program && viewOf(session)(program.pid)) ?? null;
  }

  /**
   * Ends the session as every agent session ends (pty/session-termination.ts:
   * its process group and POSIX session, then what carries its id), through
   * `end` (the service's kill) and `release` (its remove); with `force`, what
   * carries its labels or descended from it gets SIGKILL at once, before
   * `release` would give it a grace period. What its tree held before the end
   * is its own whatever its environment claims (a `setsid` child that named
   * the developer's session goes to init once the shell dies), and is ended
   * too. Says what ended, which ports that freed, and what could not be ended.
   */
  async close<T>(session: SessionRef, force: boolean, end: () => Promise<void>, release: () => Promise<T>): Promise<[T, ClosedProcesses | undefined]> {
    const before = snapshotSession(this.labels, session);
    const descended = before?.processes ?? [];
    // Each process as the session's shell sees it, read while it runs: an ended one has no /proc entry to read.
    const view = viewOf(session);
    const seen = new Map<number, number | undefined>();
    const see = (procs: readonly OwnedProcess[]) => procs.forEach(({ pid }) => seen.has(pid) || seen.set(pid, view(pid)));
    see(descended);
    await end();
    if (force) await endSessionLeftovers(this.labels, session, LEFTOVER_GRACE_MS, true, descended);
    const released = await release();
    this.forget(session.id);
    if (!before) return [released, undefined];
    // Normally nothing: only what survived SIGKILL, what left the tree before the end, or what was started meanwhile.
    const leftovers = unionOf(descended, sessionLeftovers(this.labels, session)).filter(stillRunning);
    see(leftovers);
    const seenAs: PidView = (pid) => seen.get(pid);
    const survivors = await endProcesses(leftovers, LEFTOVER_GRACE_MS, force);
    const all = unionOf(before.processes, leftovers);
    const ended = all.filter((proc) => !survivors.some((s) => s.pid === proc.pid) && !stillRunning(proc));
    const endedPids = new Set(ended.map((proc) => proc.pid));
    // The sandbox's own bubblewrap is no process of the agent's (terminal_list leaves it out of the background too):
    // naming it would hand the model a long command line of bind mounts it never ran.
    const launcher = launcherPids(session, before.processes);
    return [
      released,
      {
        ended: ended.filter((proc) => !launcher.has(proc.pid)).flatMap(endedField(seenAs)),
        ports_freed: before.ports.filter((port) => endedPids.has(port.pid)).flatMap(portField(seenAs)),
        ...(survivors.length > 0 ? { not_ended: survivors.flatMap(endedField(seenAs)) } : {}),
      },
    ];
  }

  /** Closes what it keeps open (the TCP count's descriptors). */
  dispose(): void {
    this.tcp.dispose();
  }

  forget(sessionId: string): void {
    this.told.delete(sessionId);
    this.seen.delete(sessionId);
    this.fingerprints.delete(sessionId);
  }

  /** Notes `reported` as told; a port no longer listening is forgotten, so one opened again is news. */
  private report(sessionId: string, current: readonly OwnedPort[], reported: readonly OwnedPort[]): void {
    if (!this.present(sessionId)) return;
    const told = this.told.get(sessionId);
    const inodes = new Set(reported.map((port) => port.inode));
    for (const port of current) if (told?.has(port.inode)) inodes.add(port.inode);
    this.told.set(sessionId, inodes);
  }
}

function viewOf(session: SessionRef): PidView {
  return pidViewOf(session.wrapped === true);
}

// A process the session's shell cannot see (a sandbox's launcher, one gone meanwhile) is left out: its pid means nothing there.
function portField(view: PidView) {
  return ({ port, address, pid }: OwnedPort): ListedPort[] => {
    const seen = view(pid);
    return seen === undefined ? [] : [{ port, address, pid: seen }];
  };
}

function processField(view: PidView) {
  return ({ pid, command, startedAt }: OwnedProcess): ListedProcess[] => {
    const seen = view(pid);
    return seen === undefined ? [] : [{ pid: seen, command, started_at: Math.round(startedAt) }];
  };
}

function endedField(view: PidView) {
  return ({ pid, command }: OwnedProcess): { pid: number; command: string }[] => {
    const seen = view(pid);
    return seen === undefined ? [] : [{ pid: seen, command }];
  };
}
