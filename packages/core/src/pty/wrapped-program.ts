// A wrapped session's own processes (the launcher, its forks of itself, the program it started) and what runs
// behind the agent's back: told apart from the processes session-processes.ts attributes to the session.
import { childPids, isLive, processesKnown, procPids, readStat, type ProcStat } from '../proc/proc-fs.js';
import type { LabelReader } from './session-labels.js';
import { processOf, push, sessionProcesses, type OwnedProcess, type SessionRef, type SessionSnapshot } from './session-processes.js';

/** Processes that are not the session's own process nor its terminal's foreground job: what runs behind the agent's back. */
export function backgroundProcesses(session: SessionRef, snapshot: SessionSnapshot): OwnedProcess[] {
  const own = session.running ? ownProcesses(session, snapshot.processes) : new Set<number>();
  return snapshot.processes.filter(
    (proc) => !own.has(proc.pid) && !(snapshot.foregroundGroup !== null && snapshot.foregroundGroup !== session.pid && proc.pgrp === snapshot.foregroundGroup),
  );
}

/**
 * The running session's own process: its pid, and for a wrapped one the
 * launcher's forks of itself (bubblewrap's init in its PID namespace: the same
 * command line, no exec) and the first program the innermost one started (the
 * shell; a daemon orphaned inside starts later).
 */
function ownProcesses(session: SessionRef, processes: readonly OwnedProcess[]): Set<number> {
  const own = new Set([session.pid]);
  if (!session.wrapped) return own;
  const { forks, program } = unwrap(session, processes);
  for (const fork of forks) own.add(fork.pid);
  if (program) own.add(program.pid);
  return own;
}

/**
 * A wrapped session's launcher and its forks of itself (bubblewrap, outside and
 * as init in its PID namespace): the sandbox's machinery, not processes the
 * session's program started. Empty for an unwrapped session.
 */
export function launcherPids(session: SessionRef, processes: readonly OwnedProcess[]): Set<number> {
  if (!session.wrapped) return new Set();
  return new Set([session.pid, ...unwrap(session, processes).forks.map((fork) => fork.pid)]);
}

function unwrap(session: SessionRef, processes: readonly OwnedProcess[]): { forks: OwnedProcess[]; program: OwnedProcess | undefined } {
  const launcher = processes.find((proc) => proc.pid === session.pid);
  if (!launcher) return { forks: [], program: undefined };
  const childrenOf = (pid: number) => processes.filter((proc) => proc.ppid === pid);
  const forks: OwnedProcess[] = [];
  let innermost = launcher;
  for (let fork = childrenOf(innermost.pid).find((proc) => proc.command === launcher.command); fork; fork = childrenOf(innermost.pid).find((proc) => proc.command === launcher.command)) {
    forks.push(fork);
    innermost = fork;
  }
  const [program] = childrenOf(innermost.pid)
    .filter((proc) => !forks.includes(proc))
    .sort((a, b) => a.startTicks - b.startTicks || a.pid - b.pid);
  return { forks, program };
}

/**
 * The program a running wrapped session's launcher started (the shell inside
 * a sandbox), once it has: undefined before its exec, after its exit, or
 * where /proc is missing.
 */
export function wrappedProgram(labels: LabelReader, session: SessionRef): OwnedProcess | undefined {
  return programFromChildren(session) ?? programAfterLauncher(session) ?? unwrap(session, sessionProcesses(labels, session)).program;
}

/** How deep a launcher's forks of itself go, at most (bubblewrap's: one, its init in the new PID namespace). */
const MAX_LAUNCHER_FORKS = 8;

/**
 * The program as wrappedProgram finds it, from the children the kernel lists
 * for the launcher and for each of its forks of itself (proc-fs.ts childPids):
 * a handful of reads, where programAfterLauncher reads the stat line of every
 * process started after the launcher (hundreds on a busy machine, a
 * millisecond or more of every sandboxed terminal_create). The processes unwrap
 * looks at are all here: the launcher, each fork's children, the innermost's
 * among them. Undefined when the kernel keeps no such lists or the chain is
 * not all there (the program has not started): the scans decide then.
 */
function programFromChildren(session: SessionRef): OwnedProcess | undefined {
  if (!session.running || session.pid <= 0 || !processesKnown()) return undefined;
  const launcherStat = readStat(session.pid);
  if (!launcherStat || !isLive(launcherStat)) return undefined;
  const launcher = processOf(session.pid, launcherStat);
  const tree: OwnedProcess[] = [launcher];
  for (let parent: number | undefined = session.pid, depth = 0; parent !== undefined && depth <= MAX_LAUNCHER_FORKS; depth++) {
    const children = childPids(parent);
    if (children === undefined) return undefined;
    let fork: number | undefined;
    for (const pid of children) {
      const stat = readStat(pid);
      if (!stat || !isLive(stat) || stat.ppid !== parent) continue;
      const child = processOf(pid, stat);
      tree.push(child);
      if (fork === undefined && child.command === launcher.command) fork = pid;
    }
    parent = fork;
  }
  return unwrap(session, tree).program;
}

/**
 * The program as wrappedProgram finds it, from the processes started after
 * the launcher alone, which spares a sandboxed terminal_create the whole
 * table's stat lines (a millisecond or two on a busy machine). Pids are
 * handed out in increasing order until they wrap at pid_max, so the
 * launcher's forks and the program it started first have greater pids than
 * it, and any child with a smaller one started after the wrap, later than
 * those. Undefined when the chain is not all there (the pids wrapped
 * meanwhile, or the program has not started): the full scan decides then.
 */
function programAfterLauncher(session: SessionRef): OwnedProcess | undefined {
  if (!session.running || session.pid <= 0 || !processesKnown()) return undefined;
  const launcher = readStat(session.pid);
  if (!launcher || !isLive(launcher)) return undefined;
  const children = new Map<number, number[]>();
  const stats = new Map<number, ProcStat>([[session.pid, launcher]]);
  for (const pid of procPids()) {
    if (pid <= session.pid) continue;
    const stat = readStat(pid);
    if (!stat || !isLive(stat)) continue;
    stats.set(pid, stat);
    push(children, stat.ppid, pid);
  }
  // The launcher and what descends from it: the only processes unwrap looks at.
  const tree: OwnedProcess[] = [];
  const queue = [session.pid];
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    tree.push(processOf(next, stats.get(next)!));
    queue.push(...(children.get(next) ?? []));
  }
  return unwrap(session, tree).program;
}
