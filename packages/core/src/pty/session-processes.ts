// What a session owns on the machine (processes, listening ports), read from /proc only when a result asks.
import { CHAT_HOST_ENV, CHAT_ID_ENV, HOST_ID_ENV, SESSION_ID_ENV, SESSION_KEY_ENV } from '../common/env-names.js';
import type { ChatLabel, EnvironLabels, LabelReader, ProcessLabel } from './session-labels.js';
import { commandOf, isLive, processesKnown, procPids, readOptional, readStat, sameTurnStatTable, startedAtMs, type ProcStat } from '../proc/proc-fs.js';
import { ProcessFacts } from './process-facts.js';
import { TurnSlices } from '../common/turn-slices.js';
import { listeningSockets, listeningSocketsOffThread, type ListeningSocket } from '../proc/tcp-table.js';

/**
 * What a session owns on the machine, read from /proc on demand (never on the
 * keystroke or output path). A process is the session's when the first of
 * these that says anything says so:
 * - it descends from the session's process (its ppid chain), while that runs:
 *   once it has exited its pid may belong to anyone;
 * - it is in the session's POSIX session (node-pty starts the session's process
 *   with setsid, so its pid is the sid of everything that stays in the terminal;
 *   the kernel reuses no pid still in use as a sid);
 * - its environment carries the session's labels, which every session's
 *   process starts with and children inherit (pty/session-labels.ts: the
 *   session's key, else its id with this host's id): this finds what left on
 *   purpose (nohup, setsid, a daemon's double fork to init).
 * The kernel's facts come first: a process in an agent's tree that names the
 * developer's session in its environment is the agent's. A process that both
 * scrubs or forges its labels and leaves the tree and the POSIX session cannot
 * be told from anyone else's, and is not found.
 */

export interface SessionRef {
  id: string;
  pid: number;
  /** Whether the session's process still runs: only then does its pid name its tree. */
  running: boolean;
  /**
   * Whether the session's process is a launcher that runs the program under it
   * (a sandbox's bubblewrap): its own forks and the program it started are then
   * the session's process too, not jobs in the background.
   */
  wrapped?: boolean;
}

export interface OwnedProcess {
  pid: number;
  /** Its command line, bounded. */
  command: string;
  /** Unix time in ms. */
  startedAt: number;
  pgrp: number;
  ppid: number;
  /** Start time in clock ticks after boot: with the pid, names this process and no later one that reuses the pid. */
  startTicks: number;
}

export interface OwnedPort extends ListeningSocket {
  /** The (first) process of the session holding the listening socket. */
  pid: number;
  /** The socket's inode: a port closed and opened again is a new socket. */
  inode: string;
}

export interface SessionSnapshot {
  processes: OwnedProcess[];
  ports: OwnedPort[];
  /** The foreground process group of the session's terminal while its process runs, else null. */
  foregroundGroup: number | null;
}

/**
 * One for the whole process: every scan in it reads the same kernel, and
 * what one scan learned spares the next its reads (process-facts.ts).
 */
const facts = new ProcessFacts<EnvironLabels>();

export interface SnapshotOptions {
  /**
   * Also every process whose labels name a session of this host not among
   * those asked for, under that id: what sessions this host no longer has
   * left running (a closed tab's `nohup` job, a previous host's of the same
   * state directory). Another host's (another PTYDECK_HOST_ID) never come.
   */
  outlived?: boolean;
}

/** One scan of the process table for several sessions at once; undefined where /proc is missing. */
export function snapshotSessions(labels: LabelReader, sessions: readonly SessionRef[], options: SnapshotOptions = {}): Map<string, SessionSnapshot> | undefined {
  if (!processesKnown()) return undefined;
  return snapshotOf(readProcessTable(freshPids(sessions)), labels, sessions, options);
}

/**
 * snapshotSessions with the process table (/proc's directory and every stat line it needs, most of a
 * scan's time: 12 to 36 ms with bench figure 5's 100 sessions on a loaded machine), the labels of
 * programs new to it (each one's environment) and the holders of listening sockets new to it (each
 * process's descriptors) read a slice of `sliceMs` at a time, `yieldTurn` between, so the loop's other
 * work (a keystroke, a screen read's answer) waits for a slice, not the whole scan. The processes are
 * attributed in a turn after the last read, with nothing left to read but the TCP tables. What it
 * shows is read over those turns: every process /proc listed as the scan began is looked at, so one
 * started before it is shown and one ended before it is not; a process that came or went meanwhile
 * is shown as the next scan finds it, as one between two scans is. For what is shown (the process
 * watch's timer looks, terminal_list, a panel's query); a check, or an end, reads its own in one turn.
 */
export async function snapshotSessionsInTurns(
  labels: LabelReader,
  sessions: readonly SessionRef[],
  options: SnapshotOptions,
  yieldTurn: () => Promise<void>,
  sliceMs = SCAN_SLICE_MS,
): Promise<Map<string, SessionSnapshot> | undefined> {
  if (!processesKnown()) return undefined;
  const fresh = freshPids(sessions);
  // /proc's directory (about 2 ms with 1300 processes on a loaded machine) is the first slice's.
  const slices = new TurnSlices(yieldTurn, sliceMs);
  const pids = procPids();
  const stats = new Map<number, ProcStat>();
  /** The processes the table will hold (tableOf): the only ones holders() looks into. */
  const live = new Map<number, ProcStat>();
  for (const pid of pids) {
    const paused = slices.pause();
    if (paused) await paused;
    const stat = facts.stat(pid, fresh.has(pid), Date.now());
    if (!stat) continue;
    stats.set(pid, stat);
    if (!isLive(stat) || pid === process.pid) continue;
    live.set(pid, stat);
    // What attribute() reads of a process in no session's tree nor POSIX session (its environment, once per program), here in slices.
    facts.label(pid, stat, labelOf);
  }
  // The TCP tables read on libuv's thread pool (the kernel's walk is most of their cost, a few ms in one read:
  // tcp-table.ts), not in a turn of this loop. The holders of sockets that began listening, walked for ahead
  // in slices (a program may hold tens of thousands of descriptors): the snapshot's holders() then walks only
  // for one that began meanwhile.
  const listening = await listeningSocketsOffThread();
  if (listening) await facts.learnHolders(new Set(listening.keys()), live, yieldTurn, sliceMs);
  await yieldTurn();
  // The rest in this turn: the stat lines read are the table's, as a one-turn scan's would be.
  return snapshotOf(tableOf(pids, (pid) => stats.get(pid)), labels, sessions, options, listening);
}

/** The pids of the running sessions' own processes, whose stat lines a scan reads afresh. */
function freshPids(sessions: readonly SessionRef[]): Set<number> {
  return new Set(sessions.filter((session) => session.running).map((session) => session.pid));
}

/** Each of `sessions`' processes and ports in `table`. */
function snapshotOf(
  table: ProcessTable,
  labels: LabelReader,
  sessions: readonly SessionRef[],
  options: SnapshotOptions,
  read: Map<string, ListeningSocket> | undefined = listeningSockets(),
): Map<string, SessionSnapshot> {
  const owner = attribute(table, sessions, options.outlived ?? false, labels);
  const listening = read ?? new Map<string, ListeningSocket>();
  const result = new Map<string, SessionSnapshot>();
  for (const session of sessions) {
    const leader = session.running ? table.stats.get(session.pid) : undefined;
    result.set(session.id, { processes: [], ports: [], foregroundGroup: leader && leader.tpgid > 0 ? leader.tpgid : null });
  }
  const snapshotOf = (id: string): SessionSnapshot => {
    let snapshot = result.get(id);
    if (!snapshot) result.set(id, (snapshot = { processes: [], ports: [], foregroundGroup: null }));
    return snapshot;
  };
  for (const [pid, id] of [...owner].sort(([a], [b]) => a - b)) snapshotOf(id).processes.push(processOf(pid, table.stats.get(pid)!));
  for (const [inode, pid] of facts.holders(new Set(listening.keys()), table.stats)) {
    const id = owner.get(pid);
    if (id !== undefined) snapshotOf(id).ports.push({ ...listening.get(inode)!, pid, inode });
  }
  for (const snapshot of result.values()) snapshot.ports.sort((a, b) => a.port - b.port || a.address.localeCompare(b.address));
  return result;
}

/** How long a slice of snapshotSessionsInTurns reads before it lets the loop run: a few ms, as the other work a result does between turns. */
export const SCAN_SLICE_MS = 4;

/** A session's processes as snapshotSessions finds them, without their ports (no TCP table read). Empty where /proc is missing. */
export function sessionProcesses(labels: LabelReader, session: SessionRef): OwnedProcess[] {
  if (!processesKnown()) return [];
  const table = readProcessTable(new Set(session.running ? [session.pid] : []));
  const owned = attribute(table, [session], false, labels);
  return [...owned.keys()].sort((a, b) => a - b).map((pid) => processOf(pid, table.stats.get(pid)!));
}

/** What a session that no longer runs left behind: processes in its POSIX session or carrying its labels. */
export function sessionLeftovers(labels: LabelReader, session: Pick<SessionRef, 'id' | 'pid'>): OwnedProcess[] {
  return sessionProcesses(labels, { ...session, running: false });
}

/**
 * Whose each of `pids` is: the id of the session among `sessions` it belongs
 * to (as snapshotSessions decides), else the session of this host its labels
 * name (one no longer live); pids of neither are left out.
 */
export function sessionsOf(labels: LabelReader, pids: readonly number[], sessions: readonly SessionRef[]): Map<number, string> {
  const found = new Map<number, string>();
  if (!processesKnown() || pids.length === 0) return found;
  const table = readProcessTable();
  const owner = attribute(table, sessions, false, labels);
  for (const pid of pids) {
    const stat = table.stats.get(pid);
    const label = stat ? facts.label(pid, stat, labelOf)?.session : undefined;
    const id = owner.get(pid) ?? (label ? labels.sessionOf(label) : undefined);
    if (id !== undefined) found.set(pid, id);
  }
  return found;
}

interface ProcessTable {
  stats: Map<number, ProcStat>;
  /** By parent pid. */
  children: Map<number, number[]>;
  /** By POSIX session id. */
  members: Map<number, number[]>;
}

/**
 * Every live process but ourselves, by parent and by POSIX session. The
 * stat lines of `fresh` (sessions' own processes) are read now; others may
 * come from an earlier scan (process-facts.ts). A table read in this turn
 * (sameTurnStatTable) stands for every read.
 */
function readProcessTable(fresh: ReadonlySet<number> = new Set()): ProcessTable {
  const stats = new Map<number, ProcStat>();
  const children = new Map<number, number[]>();
  const members = new Map<number, number[]>();
  // Every line read in this turn already (the judge of the request that asked for this scan, or the early look at its
  // connection, offered to it): none is read again, but for a session's own process the table does not list (a
  // session started since an offered table was read), which is read now.
  const shared = sameTurnStatTable();
  const listed = shared ? new Set(shared.pids) : undefined;
  const unlisted = listed ? [...fresh].filter((pid) => !listed.has(pid)) : [];
  const pids = shared ? [...shared.pids, ...unlisted] : procPids();
  const now = Date.now();
  return tableOf(pids, (pid) => facts.stat(pid, fresh.has(pid), now, listed?.has(pid) ? shared!.stats : undefined));
}

/**
 * The table of `pids`, each with the stat line `statOf` gives (none: gone), offered to this turn's
 * readers (see turnTable); the facts of pids not listed are dropped.
 */
function tableOf(pids: readonly number[], statOf: (pid: number) => ProcStat | undefined): ProcessTable {
  const stats = new Map<number, ProcStat>();
  const children = new Map<number, number[]>();
  const members = new Map<number, number[]>();
  for (const pid of pids) {
    const stat = statOf(pid);
    if (!stat || !isLive(stat) || pid === process.pid) continue;
    stats.set(pid, stat);
    push(children, stat.ppid, pid);
    push(members, stat.sid, pid);
  }
  facts.retain(new Set(pids));
  const table = { stats, children, members };
  if (turnTable === undefined) queueMicrotask(() => (turnTable = undefined));
  turnTable = table;
  return table;
}

/**
 * The last table readProcessTable made in this turn of the event loop: the process watch's orphan search follows
 * its scan in the same turn (chatProcesses), and nothing but this turn's code has run since, so the table stands
 * for one of its own, and the search reads no /proc directory nor stat line but those of what it finds. (One
 * read in turns, snapshotSessionsInTurns, is offered in its last turn: what the search finds is only shown.)
 */
let turnTable: ProcessTable | undefined;

/** Adds `pid` to `key`'s list in `index`. */
export function push(index: Map<number, number[]>, key: number, pid: number): void {
  const pids = index.get(key);
  if (pids) pids.push(pid);
  else index.set(key, [pid]);
}

/**
 * Which of `sessions` each process is, by tree, POSIX session, then labels
 * (see the top of this file); with `outlived`, a process whose labels name
 * any other session of this host is that session's.
 */
function attribute({ stats, children, members }: ProcessTable, sessions: readonly SessionRef[], outlived: boolean, labels: LabelReader): Map<number, string> {
  const owner = new Map<number, string>();
  for (const session of sessions) {
    if (session.pid <= 0) continue;
    const queue = session.running && stats.has(session.pid) ? [session.pid] : [];
    for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
      if (owner.has(next)) continue;
      owner.set(next, session.id);
      queue.push(...(children.get(next) ?? []));
    }
    // A live process with an ended session's pid means the pid was reused (the kernel keeps a pid from reuse only while
    // some process has it as its sid): the sid then names the new process's session, not what ours left.
    if (!session.running && stats.has(session.pid)) continue;
    for (const pid of members.get(session.pid) ?? []) if (!owner.has(pid)) owner.set(pid, session.id);
  }
  const ids = new Set(sessions.map((session) => session.id));
  for (const [pid, stat] of stats) {
    if (owner.has(pid)) continue;
    const label = facts.label(pid, stat, labelOf)?.session;
    const id = label ? labels.sessionOf(label) : undefined;
    if (id !== undefined && (outlived || ids.has(id))) owner.set(pid, id);
  }
  return owner;
}

/** A live process as results name it, its command line read once per program (process-facts.ts). */
export function processOf(pid: number, stat: ProcStat): OwnedProcess {
  return { pid, command: facts.command(pid, stat, commandOf), startedAt: startedAtMs(stat), pgrp: stat.pgrp, ppid: stat.ppid, startTicks: stat.startTicks };
}

export function snapshotSession(labels: LabelReader, session: SessionRef): SessionSnapshot | undefined {
  return snapshotSessions(labels, [session])?.get(session.id);
}

/** Whether `proc` still runs: the same pid started at the same tick, not a zombie. */
export function stillRunning(proc: OwnedProcess): boolean {
  const stat = readStat(proc.pid);
  return stat !== undefined && isLive(stat) && stat.startTicks === proc.startTicks;
}

/**
 * What the environment `pid` was started with says of whose it is (its session's labels, its chat's); undefined
 * when it says neither or cannot be read (another user's process, or gone), null when it is empty (a kernel
 * thread, or a process inside its exec: see ProcessFacts.label).
 */
function labelOf(pid: number): EnvironLabels | undefined | null {
  const environ = readOptional(`/proc/${pid}/environ`);
  if (environ === '') return null;
  if (environ === undefined) return undefined;
  const id = variable(environ, SESSION_ID_ENV);
  const host = variable(environ, HOST_ID_ENV);
  const session = id === undefined ? undefined : { id, host, key: variable(environ, SESSION_KEY_ENV) };
  const chatId = variable(environ, CHAT_ID_ENV);
  const chat = chatId === undefined ? undefined : { chatId, chatHost: variable(environ, CHAT_HOST_ENV), hostId: host, inSession: id !== undefined };
  return session || chat ? { session, chat } : undefined;
}

/**
 * Every live process but ourselves whose environment carries a chat id, with its stat line read now. The
 * environments are those every scan keeps (read once per program, process-facts.ts), so a search after the
 * first reads the environments of programs new since, not every process's, as it did (tens of ms of the loop at
 * once under bench figure 5's load); and, in the turn of a scan (the process watch's look), not the table either.
 */
export function chatProcesses(): (OwnedProcess & { chat: ChatLabel })[] {
  if (!processesKnown()) return [];
  const found: (OwnedProcess & { chat: ChatLabel })[] = [];
  for (const [pid, known] of (turnTable ?? readProcessTable()).stats) {
    const chat = facts.label(pid, known, labelOf)?.chat;
    if (!chat) continue;
    // The line a scan keeps may be seconds old: what is reported (and may be ended) is the process as it is now.
    const stat = readStat(pid);
    if (stat && isLive(stat) && stat.startTicks === known.startTicks) found.push({ ...processOf(pid, stat), chat });
  }
  return found;
}

/** The value of `name` in a NUL-separated environment. */
function variable(environ: string, name: string): string | undefined {
  const key = `${name}=`;
  const at = environ.startsWith(key) ? 0 : environ.indexOf(`\0${key}`) + 1;
  if (at === 0 && !environ.startsWith(key)) return undefined;
  const start = at + key.length;
  const end = environ.indexOf('\0', start);
  return environ.slice(start, end < 0 ? undefined : end);
}
