import { closeSync, openSync, readdirSync, readlinkSync, readSync } from 'node:fs';

/**
 * The few /proc reads every process lookup shares (the process table, a
 * process's stat line; its socket descriptors are socket-descriptors.ts'). Linux only: callers check
 * `process.platform` and treat a missing file as a process that went away.
 */

let procMounted: boolean | undefined;

/**
 * Whether this system can say (Linux /proc); elsewhere every caller leaves the
 * fields out. Looked up once: /proc is there for the process's life or not at
 * all, and reading /proc/self/stat sums every thread of the host (about 15 to
 * 80 us), which each terminal_run result paid once or twice (bench figure 4).
 * The platform is asked each time: what is cached is only whether Linux has
 * /proc mounted (a test that stands in for macOS must not leave Linux's
 * callers without it).
 */
export function processesKnown(): boolean {
  if (process.platform !== 'linux') return false;
  procMounted ??= readOptional('/proc/self/stat') !== undefined;
  return procMounted;
}

/** Numeric entries of /proc: every process visible to us, in no particular order. */
export function procPids(): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    const first = name.charCodeAt(0);
    if (first >= 48 && first <= 57) pids.push(Number(name));
  }
  return pids;
}

/** One buffer for every read: /proc files report no size, and a scan reads thousands of small ones. */
let buffer = Buffer.allocUnsafe(64 * 1024);
const NEWLINE = 0x0a;

export interface ReadOptions {
  /** How the bytes become text; default latin1 (the kernel's tables are ASCII). */
  encoding?: BufferEncoding;
  /**
   * The file is one line the kernel writes whole (a process's stat): a read
   * that returns text ending in a newline has all of it, and the read that
   * would return end of file is not made.
   */
  oneLine?: boolean;
}

/**
 * The file's text, or undefined when it cannot be read (gone, another
 * user's). Open, read, close and nothing else: readFileSync's fstat and
 * fresh buffer were a third of a scan's time.
 */
export function readOptional(path: string, { encoding = 'latin1', oneLine = false }: ReadOptions = {}): string | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    let length = 0;
    for (;;) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
      if (oneLine && buffer[length - 1] === NEWLINE) break;
      if (length === buffer.length) {
        const larger = Buffer.allocUnsafe(buffer.length * 2);
        buffer.copy(larger);
        buffer = larger;
      }
    }
    return buffer.toString(encoding, 0, length);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

export interface ProcStat {
  /** The program's name (comm), which exec changes. */
  name: string;
  /** R, S, D, Z (zombie), X (dead), T, ... */
  state: string;
  ppid: number;
  pgrp: number;
  sid: number;
  /** The foreground process group of the process's controlling terminal (-1 without one). */
  tpgid: number;
  /** When the process started, in clock ticks after boot. */
  startTicks: number;
}

/** The fields of /proc/<pid>/stat we use. After "(comm)", which may hold spaces and parens: state ppid pgrp session tty_nr tpgid ... starttime (the 20th). */
export function parseStat(text: string): ProcStat {
  const close = text.lastIndexOf(')');
  const fields = text.slice(close + 2).split(' ', 20);
  return {
    name: text.slice(text.indexOf('(') + 1, close),
    state: fields[0] ?? '',
    ppid: Number(fields[1]),
    pgrp: Number(fields[2]),
    sid: Number(fields[3]),
    tpgid: Number(fields[5]),
    startTicks: Number(fields[19]),
  };
}

/**
 * The process's stat line, or undefined when it is gone. The kernel writes the
 * line whole in one read (a single seq_file record), so the read that would
 * return end of file is not made: three system calls where there were four,
 * for every process the judge of `ptydeck ls` looks at (bench figure 12). A
 * newline in the process's name (comm) cannot end a read early: the line is
 * copied whole into a buffer far larger than it.
 */
export function readStat(pid: number): ProcStat | undefined {
  const text = readOptional(`/proc/${pid}/stat`, { oneLine: true });
  return text === undefined ? undefined : parseStat(text);
}

/** Every process's stat line, read at one moment. */
export interface StatTable {
  /** The pids /proc listed. */
  pids: number[];
  /** Their stat lines; a pid gone before its line was read has none. */
  stats: Map<number, ProcStat>;
}

let turnTable: StatTable | undefined;

/**
 * Every process's stat line, read now. The table is also offered, until the
 * current turn of the event loop ends, to a reader that shows what it finds
 * (sameTurnStatTable): the judge of `ptydeck ls` reads every process's line,
 * and the process watch's look that follows in the same request then reads
 * none (bench figure 12).
 */
export function readStatTable(handles?: StatHandles): StatTable {
  const pids = procPids();
  const stats = new Map<number, ProcStat>();
  if (handles) handles.readAll(pids, stats);
  else {
    for (const pid of pids) {
      const stat = readStat(pid);
      if (stat) stats.set(pid, stat);
    }
  }
  const table = { pids, stats };
  offerStatTable(table);
  return table;
}

/**
 * Offers `table` as sameTurnStatTable's until the current turn of the event
 * loop ends. readStatTable offers what it reads; a server offers, in the turn
 * that answers a connection's request, the table its early look read as it
 * accepted that connection (peer-process.ts, EarlyLook): milliseconds old, read
 * for that very request, and far fresher than the ten seconds a scan keeps a
 * settled process's line (process-facts.ts), so the process watch's look that
 * `ptydeck ls` takes reads no stat line and no /proc directory of its own (bench
 * figure 12). What is shown may take it; a check reads its own.
 */
export function offerStatTable(table: StatTable): void {
  if (turnTable === undefined) queueMicrotask(() => (turnTable = undefined));
  turnTable = table;
}

/**
 * Open /proc/<pid>/stat descriptors kept from one readStatTable to the next, so
 * a table is one pread a process where it was an open, a read and a close: half
 * the cost of the host's look at each connection it accepts (bench figure 12).
 * A descriptor stays bound to the process it was opened for, not to its pid:
 * once that process is reaped, a read of it fails (ESRCH) even if the pid is
 * reused, and the pid is then opened again by its path, so a line is never
 * another process's. Descriptors of pids /proc no longer lists are closed at
 * each table; at most `limit` are held (past it, a pid is read by its path as
 * before), a quarter of this process's descriptor limit and no more than 4096.
 * The owner disposes it.
 */
export class StatHandles {
  private readonly fds = new Map<number, number>();
  private readonly limit: number;

  constructor(limit = statHandleLimit()) {
    this.limit = limit;
  }

  /** How many descriptors are held now. */
  get size(): number {
    return this.fds.size;
  }

  /** Whether the stat file of `pid` is held open now. */
  holds(pid: number): boolean {
    return this.fds.has(pid);
  }

  /** Each listed pid's stat line into `stats` (a pid gone meanwhile gets none); drops the descriptors of pids not listed. */
  readAll(pids: readonly number[], stats: Map<number, ProcStat>): void {
    const listed = new Set<number>();
    for (const pid of pids) {
      listed.add(pid);
      const stat = this.read(pid);
      if (stat) stats.set(pid, stat);
    }
    for (const [pid, fd] of this.fds) {
      if (listed.has(pid)) continue;
      this.fds.delete(pid);
      closeSync(fd);
    }
  }

  private read(pid: number): ProcStat | undefined {
    const held = this.fds.get(pid);
    if (held !== undefined) {
      const text = readLineAt(held);
      if (text !== undefined) return parseStat(text);
      // Reaped (its pid may now be another process's): read the pid afresh.
      this.fds.delete(pid);
      closeSync(held);
    }
    if (this.fds.size >= this.limit) return readStat(pid);
    let fd: number;
    try {
      fd = openSync(`/proc/${pid}/stat`, 'r');
    } catch {
      return undefined;
    }
    const text = readLineAt(fd);
    if (text === undefined) {
      closeSync(fd);
      return undefined;
    }
    this.fds.set(pid, fd);
    return parseStat(text);
  }

  dispose(): void {
    for (const fd of this.fds.values()) closeSync(fd);
    this.fds.clear();
  }
}

/** The one line of an open /proc stat file, read from its start (pread), or undefined when the process is gone. */
/**
 * The text of a /proc file held open on `fd`, read afresh from its start (one
 * pread: the kernel writes a file made by one show call, a stat line or a
 * counters file, whole into a read this large); undefined when the read fails
 * or finds nothing (a process reaped).
 */
export function readLineAt(fd: number): string | undefined {
  try {
    const length = readSync(fd, buffer, 0, buffer.length, 0);
    return length > 0 ? buffer.toString('latin1', 0, length) : undefined;
  } catch {
    return undefined;
  }
}

/** A quarter of this process's soft limit on descriptors (/proc/self/limits), at most 4096; 256 where it cannot be read. */
function statHandleLimit(): number {
  const match = /^Max open files\s+(\d+|unlimited)/m.exec(readOptional('/proc/self/limits') ?? '');
  if (!match) return 256;
  const soft = match[1] === 'unlimited' ? Infinity : Number(match[1]);
  return Math.min(4096, Math.floor(soft / 4));
}

/**
 * The last table readStatTable read in this turn of the event loop, or that
 * was offered in it (offerStatTable), if any: as fresh as a read of one's own
 * for what is shown, as nothing can have run since but the code of this turn
 * (or, for an offered one, the few milliseconds of a request: a session's own
 * process it does not list is read by the scan, session-processes.ts). A check
 * reads its own.
 */
export function sameTurnStatTable(): StatTable | undefined {
  return turnTable;
}

/**
 * The pids of `pid` in each PID namespace it is in (the NSpid line of its
 * status file), from the namespace this /proc belongs to down to the
 * process's own, innermost last; undefined when it is gone.
 */
export function namespacePids(pid: number | 'self'): number[] | undefined {
  const match = /^NSpid:\t(.+)$/m.exec(readOptional(`/proc/${pid}/status`) ?? '');
  return match ? match[1]!.split('\t').map(Number) : undefined;
}

/**
 * The children of `pid` as the kernel lists them (`/proc/PID/task/TID/children`, for each of its threads: a
 * child belongs to the thread that forked it), or undefined where they cannot be read: the process is gone, or
 * the kernel keeps no such list (built without CONFIG_PROC_CHILDREN). A child that exits meanwhile may still be
 * listed, and one forked meanwhile may not.
 */
export function childPids(pid: number): number[] | undefined {
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  const pids: number[] = [];
  for (const thread of threads) {
    const text = readOptional(`/proc/${pid}/task/${thread}/children`);
    if (text === undefined) return undefined;
    for (const word of text.split(/\s+/)) if (word !== '') pids.push(Number(word));
  }
  return pids;
}

/** Zombies and dead processes hold nothing and cannot be signalled out of existence. */
export function isLive(stat: ProcStat): boolean {
  return stat.state !== 'Z' && stat.state !== 'X';
}

/** Where the link points, or undefined when it cannot be read (gone, another user's). */
export function readLink(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}

/**
 * Linux reports times in /proc in USER_HZ ticks, which the kernel fixes at 100
 * for userspace on every architecture Node runs on (sysconf(_SC_CLK_TCK) is
 * not reachable from Node).
 */
const TICKS_PER_SECOND = 100;

/** When the process started, in Unix ms. */
export function startedAtMs(stat: ProcStat): number {
  return bootTimeMs() + (stat.startTicks * 1000) / TICKS_PER_SECOND;
}

let bootTime: number | undefined;
function bootTimeMs(): number {
  if (bootTime === undefined) {
    const match = /^btime (\d+)$/m.exec(readOptional('/proc/stat') ?? '');
    bootTime = match ? Number(match[1]) * 1000 : 0;
  }
  return bootTime;
}

const MAX_COMMAND_CHARS = 300;

/** Its command line with spaces between the arguments, bounded. */
export function commandOf(pid: number): string {
  const cmdline = readOptional(`/proc/${pid}/cmdline`, { encoding: 'utf8' }) ?? '';
  const command = cmdline.replace(/\0+$/, '').replaceAll('\0', ' ');
  return command.length > MAX_COMMAND_CHARS ? `${command.slice(0, MAX_COMMAND_CHARS - 1)}…` : command;
}
