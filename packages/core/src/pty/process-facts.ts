// What scans learn of each process and keep, so a scan of a thousand processes reads little.
import type { ProcessLabel } from './session-labels.js';
import { readStat, startedAtMs, type ProcStat } from '../proc/proc-fs.js';
import { socketInodes, socketInodesInTurns } from '../proc/socket-descriptors.js';
import { TurnSlices } from '../common/turn-slices.js';

/**
 * How long a process's stat line stands for it, once the process has run
 * this long. What it says of a process that has settled (its program,
 * parent, group, POSIX session, zombie or not) changes rarely and is looked
 * at again within this; a younger process (which may not have exec'd yet)
 * and a session's own process (whose terminal's foreground job is news) are
 * read at every scan, and anything signalled is checked afresh
 * (stillRunning), so a pid reused within this (pids wrap at 32768 on
 * some machines) is at worst shown as its former process for a while,
 * never signalled as it.
 */
const STAT_MAX_AGE_MS = 10_000;

/**
 * How long an empty environment is read again after a program is first
 * seen: an exec sets the environment within a scheduling slice, while a
 * kernel thread's stays empty and is then not read again.
 */
const NEW_PROGRAM_MS = 2_000;

/**
 * What a scan learns of a process, kept between scans so that one of a
 * thousand processes reads little more than /proc's directory: its stat
 * line (for STAT_MAX_AGE_MS), and, while it runs the same program, its
 * labels (what its environment says: its session's, its chat's)
 * and command line, both read once per program (a pid, its start time and
 * its name: exec changes the name), and which process holds each listening
 * socket, looked for only when the socket is new to the TCP tables (or its
 * holder has gone; for one no process held, in processes started since).
 * So after a first scan, one costs /proc's directory, the stat lines of new
 * processes and of the sessions' own, the TCP tables, and the descriptors
 * of the newest processes when a socket starts listening;
 * each process's stat line is read again about once every STAT_MAX_AGE_MS.
 */
export class ProcessFacts<Label = ProcessLabel> {
  private readonly entries = new Map<number, Entry<Label>>();
  /** The process found holding each listening socket, by inode. */
  private readonly holder = new Map<string, number>();
  /**
   * Listening sockets no process we can look into held, each with the start time (clock ticks) of the newest
   * process walked for it: a process started since may hold it (a scan reads the TCP tables after its process
   * table, so a server started in between listens in the one and is missing from the other), and is walked.
   */
  private readonly hidden = new Map<string, number>();

  /**
   * Process `pid`'s stat line: read now when `fresh`, new, or older than STAT_MAX_AGE_MS; undefined when it is gone.
   * With `table` (every line read in this turn: sameTurnStatTable), its line is the read, as fresh as one.
   */
  stat(pid: number, fresh: boolean, now: number, table?: ReadonlyMap<number, ProcStat>): ProcStat | undefined {
    const known = this.entries.get(pid);
    // A young process may be between its fork and its exec: only one that has run a while keeps its program.
    if (!table && known && !fresh && now - known.statAt < STAT_MAX_AGE_MS && now - startedAtMs(known.stat) > STAT_MAX_AGE_MS) return known.stat;
    const stat = table ? table.get(pid) : readStat(pid);
    if (!stat) return undefined;
    const entry = this.entry(pid, stat);
    entry.stat = stat;
    entry.statAt = now;
    return stat;
  }

  /** Forgets every process but those of `pids` (the table just read). */
  retain(pids: ReadonlySet<number>): void {
    for (const pid of this.entries.keys()) if (!pids.has(pid)) this.entries.delete(pid);
  }

  /**
   * Its session labels, read once per program. `read` answers null for an
   * empty environment, which is what a process shows between exec naming its
   * new program and setting its environment (see command): that is read again
   * while the program is new to us, or a detached job caught there would never
   * be known as its session's (nor ended with it).
   */
  label(pid: number, stat: ProcStat, read: (pid: number) => Label | undefined | null): Label | undefined {
    const entry = this.entry(pid, stat);
    if (!entry.labelRead) {
      const label = read(pid);
      entry.label = label ?? undefined;
      entry.labelRead = label !== null || Date.now() - entry.seenAt > NEW_PROGRAM_MS;
    }
    return entry.label;
  }

  /**
   * Its command line, read once per program. An empty one is not kept: exec
   * gives a process its new name before its new arguments are in place, so a
   * read in between sees the new program with no command line at all, and
   * keeping that showed a server as "" for as long as it ran.
   */
  command(pid: number, stat: ProcStat, read: (pid: number) => string): string {
    const entry = this.entry(pid, stat);
    if (!entry.command) entry.command = read(pid);
    return entry.command;
  }

  /**
   * The process holding each of the `listening` sockets (by inode) that a
   * process in `stats` holds. Descriptors are walked only for sockets not
   * seen listening before, newest processes first (a server just started),
   * until each is found; one no process of ours shows (another user's) is
   * looked for again, while it listens, only in processes started since.
   */
  holders(listening: ReadonlySet<string>, stats: ReadonlyMap<number, ProcStat>): ReadonlyMap<string, number> {
    const { unknown, since } = this.unknownHolders(listening, stats);
    if (unknown.size === 0) return this.holder;
    for (const pid of newestFirst(stats, since)) if (this.walk(pid, unknown)) return this.holder;
    this.hide(unknown, stats);
    return this.holder;
  }

  /**
   * The walk holders() makes through processes' descriptors for sockets it
   * does not know, made ahead of it a slice of `sliceMs` at a time with
   * `yieldTurn` between: on a machine of a few hundred processes, the first
   * walk (every socket is new to a host just started) and the one after
   * another user's server starts read thousands of links, tens of ms of the
   * loop in one piece (bench figure 8's first terminal_run), and one
   * program's tens of thousands of descriptors as much: the slice is checked
   * within a process's walk too. holders() for the same sockets then walks
   * nothing.
   */
  async learnHolders(listening: ReadonlySet<string>, stats: ReadonlyMap<number, ProcStat>, yieldTurn: () => Promise<void>, sliceMs: number): Promise<void> {
    const { unknown, since } = this.unknownHolders(listening, stats);
    if (unknown.size === 0) return;
    // The slice is checked within a process's descriptors too: one program may hold tens of thousands.
    const slices = new TurnSlices(yieldTurn, sliceMs);
    const pause = () => slices.pause();
    for (const pid of newestFirst(stats, since)) {
      await pause();
      for (const inode of await socketInodesInTurns(pid, pause)) if (unknown.delete(inode)) this.found(inode, pid);
      if (unknown.size === 0) return;
    }
    this.hide(unknown, stats);
  }

  /**
   * The listening sockets whose holder is not known (or has gone), and the hidden ones a process started
   * since their walk may hold; with the start time from which processes need walking for them (0: all).
   * Forgets those no longer listening.
   */
  private unknownHolders(listening: ReadonlySet<string>, stats: ReadonlyMap<number, ProcStat>): { unknown: Set<string>; since: number } {
    for (const inode of this.holder.keys()) if (!listening.has(inode)) this.holder.delete(inode);
    for (const inode of this.hidden.keys()) if (!listening.has(inode)) this.hidden.delete(inode);
    const newest = newestStart(stats);
    const unknown = new Set<string>();
    let since = Infinity;
    for (const inode of listening) {
      const pid = this.holder.get(inode);
      if (pid !== undefined && stats.has(pid)) continue;
      this.holder.delete(inode);
      const walked = this.hidden.get(inode);
      if (walked !== undefined && walked >= newest) continue;
      unknown.add(inode);
      // Processes as old as the last walk's newest were walked then (a tick holds more than one start: from it).
      since = Math.min(since, walked ?? 0);
    }
    return { unknown, since };
  }

  /** Notes `unknown` as held by no process of `stats` we can look into. */
  private hide(unknown: ReadonlySet<string>, stats: ReadonlyMap<number, ProcStat>): void {
    const newest = newestStart(stats);
    for (const inode of unknown) this.hidden.set(inode, newest);
  }

  /** Notes which of `unknown` process `pid` holds (taking them out of it); true once none is left. */
  private walk(pid: number, unknown: Set<string>): boolean {
    for (const inode of socketInodes(pid)) if (unknown.delete(inode)) this.found(inode, pid);
    return unknown.size === 0;
  }

  /** `pid` holds `inode`: once it goes, the socket's next holder is looked for among all processes again. */
  private found(inode: string, pid: number): void {
    this.holder.set(inode, pid);
    this.hidden.delete(inode);
  }

  private entry(pid: number, stat: ProcStat): Entry<Label> {
    let entry = this.entries.get(pid);
    if (!entry || !sameProgram(entry, stat)) {
      entry = { startTicks: stat.startTicks, name: stat.name, stat, statAt: 0, seenAt: Date.now(), labelRead: false };
      this.entries.set(pid, entry);
    }
    return entry;
  }
}

interface Entry<Label> {
  startTicks: number;
  name: string;
  stat: ProcStat;
  statAt: number;
  /** When a scan first saw this program. */
  seenAt: number;
  label?: Label;
  labelRead: boolean;
  command?: string;
}

/** Pids of processes started at `since` (clock ticks) or later, the most recently started first: a server just started holds the socket just seen. */
function newestFirst(stats: ReadonlyMap<number, ProcStat>, since = 0): number[] {
  return [...stats]
    .filter(([, stat]) => stat.startTicks >= since)
    .sort(([, a], [, b]) => b.startTicks - a.startTicks)
    .map(([pid]) => pid);
}

/** The start time (clock ticks) of the newest process of `stats`. */
function newestStart(stats: ReadonlyMap<number, ProcStat>): number {
  let newest = 0;
  for (const stat of stats.values()) newest = Math.max(newest, stat.startTicks);
  return newest;
}

function sameProgram(entry: Entry<unknown>, stat: ProcStat): boolean {
  return entry.startTicks === stat.startTicks && entry.name === stat.name;
}
