import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LeftoverSession } from '@ptydeck/contract';
import { createPtyService } from '../pty/pty-service.js';
import { fileTempDir, isolatedEnv } from '../testing/isolated-env.js';
import { waitForExit, waitForInfo, waitForOutput } from '../testing/session-waits.js';
import type { PtyService } from '../pty/types.js';
import { hostIdOf, type LabelReader } from '../pty/session-labels.js';
import { ProcessWatch, TABLES_EVERY_LOOKS } from './process-watch.js';
import { SessionFacts } from './session-facts.js';
import { commandOf, readStat } from '../proc/proc-fs.js';
import { snapshotSessions, type SessionRef, type SnapshotOptions } from '../pty/session-processes.js';
import { running } from '../testing/carrying.js';
import { until } from '../testing/poll-until.js';
import { turnMeter } from '../testing/loop-turns.js';
import { tcpTableReadsOnThread } from '../proc/tcp-table.js';

/**
 * The panel's view of what sessions run, with real shells and real servers:
 * ports on SessionInfo while a panel watches, nothing read while none does,
 * and the processes an ended session left running, ended on request.
 */

const BASH = ['--norc', '--noprofile'];
let service: PtyService;
let watch: ProcessWatch;
let facts: SessionFacts;
/** Every scan of the process table the watch makes, through its seam. */
let scans: number;

beforeEach(() => {
  service = createPtyService({ env: isolatedEnv() });
  scans = 0;
  facts = new SessionFacts(service);
  watch = new ProcessWatch(service, facts, {
    intervalMs: 50,
    scan: (labels: LabelReader, sessions: readonly SessionRef[], options: SnapshotOptions) => {
      scans++;
      return snapshotSessions(labels, sessions, options);
    },
  });
});

afterEach(async () => {
  watch.dispose();
  facts.dispose();
  await service.dispose();
});

/** An interactive shell as the developer's tab runs one, at its prompt. */
async function developerTab(title?: string): Promise<string> {
  const tab = service.create({ source: 'user', command: 'bash', args: [...BASH, '-i'], env: { PS1: '$ ' }, title });
  await waitForOutput(service, tab.id, '$ ');
  return tab.id;
}

/** Types `line`, which prints `name=<pid>`, and returns the pid. */
async function started(id: string, line: string, name: string): Promise<number> {
  service.write(id, `${line}\r`);
  const pattern = new RegExp(`${name}=(\\d+)\\r\\n`);
  return Number(pattern.exec(await waitForOutput(service, id, pattern))![1]);
}

/**
 * Until `pid` runs `command`: a job's pid is printed before it has exec'd, and
 * a watch looks again when something ends, not when a process it shows execs.
 */
function execd(pid: number, command: string): Promise<void> {
  return until(() => commandOf(pid) === command, `${pid} runs ${command}`);
}

/** Starts a Python HTTP server on a free loopback port in the session and resolves with its port once it serves. */
async function startServer(id: string): Promise<number> {
  service.write(id, 'python3 -m http.server 0 --bind 127.0.0.1\r');
  const output = await waitForOutput(service, id, /port (\d+)/);
  return Number(/port (\d+)/.exec(output)![1]);
}

/**
 * Resolves with what `watch` lists of session `id` once `holds` it. Each
 * test's service has a host id of its own, so what other tests (and other
 * test files) left running is not listed.
 */
function leftoverOf(id: string, holds: (session: LeftoverSession | undefined) => boolean, of: ProcessWatch = watch): Promise<LeftoverSession | undefined> {
  const find = (sessions: LeftoverSession[]) => sessions.find((session) => session.id === id);
  return new Promise((resolve) => {
    if (holds(find(of.leftovers()))) return resolve(find(of.leftovers()));
    const off = of.onLeftovers((sessions) => {
      if (!holds(find(sessions))) return;
      off();
      resolve(find(sessions));
    });
  });
}

describe.runIf(process.platform === 'linux')('ProcessWatch', () => {
  it("puts a server's port on its session's info within a look, and takes it off once the server is gone", async () => {
    const { id } = service.create({ source: 'user', command: 'bash', args: BASH });
    const stop = watch.watch();
    const port = await startServer(id);
    const listed = await waitForInfo(facts, id, (info) => info.ports?.some((entry) => entry.port === port) ?? false);
    const entry = listed.ports!.find((candidate) => candidate.port === port)!;
    expect(entry.address).toBe('127.0.0.1');
    expect(entry.command).toContain('http.server');
    // Ctrl-C ends the server: the port goes from the session's info.
    service.write(id, '\x03');
    await waitForInfo(facts, id, (info) => info.ports !== undefined && info.ports !== null && !info.ports.some((candidate) => candidate.port === port));
    stop();
  });

  it('shows a server that began listening as another socket closed, the count of TCP sockets as it was, within a bounded number of looks', async () => {
    const dir = fileTempDir('ptydeck-count-neutral-');
    try {
      // One process swaps a listening socket for another between two looks: listen(), then close(), at once.
      const script = join(dir, 'swap.py');
      writeFileSync(script, [
        'import socket',
        "other = socket.socket(); other.bind(('127.0.0.1', 0)); other.listen()",
        "server = socket.socket(); server.bind(('127.0.0.1', 0))",
        "print('ports', other.getsockname()[1], server.getsockname()[1], flush=True)",
        'input()',
        'server.listen(); other.close()',
        "print('swapped', flush=True)",
        'input()',
      ].join('\n'));
      const { id } = service.create({ source: 'user', command: 'python3', args: [script] });
      const stop = watch.watch();
      const [other, server] = /ports (\d+) (\d+)/.exec(await waitForOutput(service, id, /ports \d+ \d+/))!.slice(1).map(Number) as [number, number];
      await waitForInfo(facts, id, (info) => info.ports?.some((entry) => entry.port === other) ?? false);
      service.write(id, '\r');
      await waitForOutput(service, id, 'swapped');
      const swappedAt = watch.stats.looks;
      const shown = () => facts.get(id)!.ports!.map((entry) => entry.port);
      // Counted in looks, not time: by the look that reads the tables whatever the count says, the ports are as they are.
      await until(() => shown().includes(server) || watch.stats.looks > swappedAt + TABLES_EVERY_LOOKS, 'the server shown, or the looks that must show it');
      expect(shown()).toEqual([server]);
      stop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads nothing while no panel watches, and looks again once one does', async () => {
    const { id } = service.create({ source: 'user', command: 'bash', args: BASH });
    // A server that starts and listens while nobody watches: no look, no scan, no port.
    const port = await startServer(id);
    expect(watch.stats).toEqual({ looks: 0, scans: 0 });
    expect(scans).toBe(0);
    expect(facts.get(id)!.ports).toBeUndefined();

    const stop = watch.watch();
    await waitForInfo(facts, id, (info) => info.ports?.some((entry) => entry.port === port) ?? false);
    stop();
    const after = { ...watch.stats };
    const scansAfter = scans;
    // Ended while nobody watches: the port stays as last seen, nothing is read.
    service.write(id, '\x03');
    service.write(id, 'echo done-$((6*7))\r');
    await waitForOutput(service, id, 'done-42');
    expect(watch.stats).toEqual(after);
    expect(scans).toBe(scansAfter);
    expect(facts.get(id)!.ports!.some((entry) => entry.port === port)).toBe(true);
  });

  it('lists what an ended session left running, ends it on request, and refuses a pid the session does not own', async () => {
    const { id } = service.create({ source: 'user', command: 'bash', args: BASH });
    const stop = watch.watch();
    service.write(id, 'nohup sleep 987 >/dev/null 2>&1 & echo started-$!\r');
    const pid = Number(/started-(\d+)/.exec(await waitForOutput(service, id, /started-\d+/))![1]);
    service.write(id, 'exit\r');
    await waitForExit(service, id);
    const left = await leftoverOf(id, (session) => session !== undefined);
    expect(left!.processes.map((proc) => proc.pid)).toContain(pid);
    expect(left!.processes.find((proc) => proc.pid === pid)!.command).toBe('sleep 987');
    expect(left!.known).toBe(true);

    // Our own pid and init are no session's: refused, never signalled.
    const result = await watch.end(id, [pid, process.pid, 1]);
    expect(result.ended).toEqual([{ pid, command: 'sleep 987' }]);
    expect(result.notEnded).toEqual([]);
    expect(result.refused.sort()).toEqual([1, process.pid].sort());
    await leftoverOf(id, (session) => session === undefined);
    stop();
  });

  it('keeps a removed session findable while it has processes left', async () => {
    const { id } = service.create({ source: 'user', command: 'bash', args: BASH, title: 'dev tab' });
    const stop = watch.watch();
    // An interactive shell's job leads its own group, so setsid forks: `$!` is not the sleep's pid; a fresh look finds it.
    service.write(id, 'setsid nohup sleep 986 >/dev/null 2>&1 < /dev/null &\r');
    let pid = 0;
    await until(async () => (pid = (await watch.query(id))!.find((proc) => proc.command === 'sleep 986')?.pid ?? 0) > 0, 'the sleep runs');
    await service.remove(id);
    const left = await leftoverOf(id, (session) => (session?.processes.some((proc) => proc.pid === pid) ?? false) && !session!.known);
    expect(left).toMatchObject({ id, title: 'dev tab', source: 'user', known: false });
    expect((await watch.query(id))!.map((proc) => proc.command)).toContain('sleep 986');
    const result = await watch.end(id, left!.processes.map((proc) => proc.pid));
    expect(result.ended.map((proc) => proc.command)).toContain('sleep 986');
    await leftoverOf(id, (session) => session === undefined);
    // Found to have nothing left, it is forgotten.
    await expect(watch.query(id)).rejects.toThrow(/no session/);
    stop();
  });

  it("closing a developer's tab hangs up its foreground job and its plain jobs, and lists its nohup job as left running", async () => {
    const id = await developerTab();
    const stop = watch.watch();
    const detached = await started(id, 'nohup sleep 993 >/dev/null 2>&1 & echo "nohup=$!"', 'nohup');
    await execd(detached, 'sleep 993');
    const job = await started(id, 'sleep 992 & echo "job=$!"', 'job');
    const foreground = await started(id, `sh -c 'echo "fg=$$"; exec sleep 991'`, 'fg');
    try {
      await service.remove(id);
      expect(service.get(id)).toBeUndefined();
      expect(running(foreground), 'the foreground job got the hangup').toBe(false);
      // The shell passes the hangup on as it exits; the job ends on its own time, which only the process table shows.
      await until(() => !running(job), 'the shell passed the hangup on to its job');
      expect(running(detached), 'nohup lives on, as after closing a terminal window').toBe(true);
      // A scan between the shell's exit and the tab's removal lists it too, while the service still has the
      // session (known); the one after the removal is what the overview shows of a closed tab.
      const left = await leftoverOf(id, (session) => (session?.processes.some((proc) => proc.pid === detached) ?? false) && !session!.known);
      expect(left!.processes).toEqual([{ pid: detached, command: 'sleep 993', startedAt: expect.any(Number) }]);
      expect(left).toMatchObject({ source: 'user', known: false });
    } finally {
      stop();
      killQuietly(detached);
    }
  });

  it("lists a closed tab's nohup job on a later host, which never had the session", async () => {
    const id = await developerTab();
    const detached = await started(id, 'nohup sleep 989 >/dev/null 2>&1 & echo "nohup=$!"', 'nohup');
    await execd(detached, 'sleep 989');
    try {
      await service.remove(id);
      // The host that had the tab is gone (`ptydeck stop` closes the developer's tabs as terminal windows); a new one starts.
      watch.dispose();
      // A later host of the same state directory has the same host id.
      const later = createPtyService({ env: isolatedEnv(), hostId: service.labels.hostId });
      const laterWatch = new ProcessWatch(later, new SessionFacts(later), { intervalMs: 50 });
      const stop = laterWatch.watch();
      try {
        const left = await leftoverOf(id, (session) => session !== undefined, laterWatch);
        expect(left).toMatchObject({ id, source: 'user', known: false, processes: [{ pid: detached, command: 'sleep 989' }] });
        // The developer can end it from there.
        const result = await laterWatch.end(id, [detached]);
        expect(result.ended).toEqual([{ pid: detached, command: 'sleep 989' }]);
        await leftoverOf(id, (session) => session === undefined, laterWatch);
      } finally {
        stop();
        laterWatch.dispose();
        await later.dispose();
      }
    } finally {
      killQuietly(detached);
    }
  });

  it("neither lists nor ends another host's shells or what they left, each host having its own state directory", async () => {
    const [dirA, dirB] = [fileTempDir('ptydeck-host-a-'), fileTempDir('ptydeck-host-b-')];
    const hostA = createPtyService({ env: isolatedEnv(), hostId: hostIdOf(dirA) });
    const hostB = createPtyService({ env: isolatedEnv(), hostId: hostIdOf(dirB) });
    const watchA = new ProcessWatch(hostA, new SessionFacts(hostA), { intervalMs: 50 });
    const stop = watchA.watch();
    const pids: number[] = [];
    try {
      // Host B: a live shell running a job, and a closed tab's nohup job (issue 32.1).
      const live = hostB.create({ source: 'user', command: 'bash', args: BASH });
      hostB.write(live.id, 'sleep 977 & echo "job=$!"\r');
      pids.push(Number(/job=(\d+)/.exec(await waitForOutput(hostB, live.id, /job=\d+/))![1]));
      const closed = hostB.create({ source: 'user', command: 'bash', args: BASH });
      hostB.write(closed.id, 'nohup sleep 976 >/dev/null 2>&1 & echo "nohup=$!"\r');
      pids.push(Number(/nohup=(\d+)/.exec(await waitForOutput(hostB, closed.id, /nohup=\d+/))![1]));
      await execd(pids[1]!, 'sleep 976');
      await hostB.remove(closed.id);
      // Host A's own closed tab: once A lists it, A has scanned since B's processes started.
      const own = hostA.create({ source: 'user', command: 'bash', args: BASH });
      hostA.write(own.id, 'nohup sleep 975 >/dev/null 2>&1 & echo "nohup=$!"\r');
      const ownPid = Number(/nohup=(\d+)/.exec(await waitForOutput(hostA, own.id, /nohup=\d+/))![1]);
      pids.push(ownPid);
      await execd(ownPid, 'sleep 975');
      await hostA.remove(own.id);
      await leftoverOf(own.id, (session) => session?.processes.some((proc) => proc.pid === ownPid) ?? false, watchA);

      const listed = watchA.leftovers();
      expect(listed.map((session) => session.id)).not.toContain(live.id);
      expect(listed.map((session) => session.id)).not.toContain(closed.id);
      expect(listed.flatMap((session) => session.processes.map((proc) => proc.pid))).not.toContain(live.pid);
      // Nor can A be asked to end them, under B's sessions or its own.
      await expect(watchA.end(closed.id, [pids[1]!])).rejects.toThrow(/no session/);
      const refused = await watchA.end(own.id, [live.pid, pids[0]!, pids[1]!]);
      expect(refused.refused.sort()).toEqual([live.pid, pids[0]!, pids[1]!].sort());
      expect([live.pid, pids[0]!, pids[1]!].map(running)).toEqual([true, true, true]);
    } finally {
      stop();
      watchA.dispose();
      for (const pid of pids) killQuietly(pid);
      await hostA.dispose();
      await hostB.dispose();
      rmSync(dirA, { recursive: true, force: true });
      rmSync(dirB, { recursive: true, force: true });
    }
  });

  it('lists no process of a live session as left running', async () => {
    const id = await developerTab();
    const stop = watch.watch();
    const detached = await started(id, 'nohup sleep 990 >/dev/null 2>&1 & echo "nohup=$!"', 'nohup');
    const other = service.create({ source: 'user', command: 'bash', args: BASH });
    try {
      // A session ending is a scan: once the other one's is listed, this one was scanned too.
      service.write(other.id, 'nohup sleep 988 >/dev/null 2>&1 & exit\r');
      await leftoverOf(other.id, (session) => session !== undefined);
      expect(watch.leftovers().some((session) => session.id === id)).toBe(false);
      expect(watch.leftovers().flatMap((session) => session.processes).map((proc) => proc.pid)).not.toContain(detached);
    } finally {
      stop();
      killQuietly(detached);
      for (const proc of watch.leftovers().find((session) => session.id === other.id)?.processes ?? []) killQuietly(proc.pid);
    }
  });

  it("reads the chats' orphans afresh at most every 10 s, drops one that ended at the next look, and reads them again on rescan()", async () => {
    const sleeper = spawn('sleep', ['981'], { stdio: 'ignore' });
    try {
      await new Promise<void>((resolve, reject) => sleeper.once('spawn', resolve).once('error', reject));
      await until(() => commandOf(sleeper.pid!) === 'sleep 981', 'the sleep has started');
      const stat = readStat(sleeper.pid!)!;
      const orphan = { pid: sleeper.pid!, command: 'sleep 981', startedAt: 0, pgrp: stat.pgrp, ppid: stat.ppid, startTicks: stat.startTicks, chatId: 'chat-orphaned' };
      let reads = 0;
      const watching = new ProcessWatch(service, facts, {
        intervalMs: 50,
        chatOrphans: () => {
          reads++;
          return [orphan];
        },
      });
      try {
        const chatListed = () => leftoverOf('chat-orphaned', (session) => session?.processes.some((proc) => proc.pid === orphan.pid) ?? false, watching);
        let stop = watching.watch();
        await chatListed();
        const scans = watching.stats.scans;
        // A panel that comes again is a scan: the orphans found at the first still stand for them.
        stop();
        stop = watching.watch();
        await until(() => watching.stats.scans > scans, 'a second scan');
        expect(reads).toBe(1);
        // One that ends is gone from the list at the next look, without a search of every process.
        sleeper.kill('SIGKILL');
        await leftoverOf('chat-orphaned', (session) => session === undefined, watching);
        expect(reads).toBe(1);
        watching.rescan();
        await until(() => reads === 2, 'the orphans read again');
        stop();
      } finally {
        watching.dispose();
      }
    } finally {
      sleeper.kill('SIGKILL');
    }
  });

  it("takes a timer's look's scan in turns (scanInTurns), and drops one that a panel's look in one turn overtook", async () => {
    const id = await developerTab();
    let inTurns = 0;
    let release: (() => void) | undefined;
    const watching = new ProcessWatch(service, facts, {
      // So short that a panel's watch() always finds a look due.
      intervalMs: 1,
      // A view from before the panel's look, answered after it: a port the session does not hold.
      scanInTurns: async () => {
        inTurns++;
        await new Promise<void>((resolve) => (release = resolve));
        const stale = { port: 1, address: '127.0.0.1', pid: 1, inode: '1' };
        return new Map([[id, { processes: [], ports: [stale], foregroundGroup: null }]]);
      },
    });
    try {
      // The first watcher's look scans in one turn: its ports are set (none) before watch() returns.
      let stop = watching.watch();
      expect(facts.get(id)!.ports).toEqual([]);
      // The timer's look scans in turns; a panel that comes meanwhile looks at once, in one turn.
      watching.rescan();
      await until(() => release !== undefined, "the timer's look scanning in turns");
      stop();
      stop = watching.watch();
      const overtaken = release!;
      release = undefined;
      watching.rescan();
      overtaken();
      await until(() => release !== undefined, 'the next timer look scanning in turns');
      expect(inTurns).toBe(2);
      expect(facts.get(id)!.ports).toEqual([]);
      // A look that nothing overtook sets what it found.
      release!();
      await waitForInfo(facts, id, (info) => info.ports?.some((entry) => entry.port === 1) ?? false);
      stop();
    } finally {
      release?.();
      watching.dispose();
    }
  });

  it("reads a timer's look's socket tables, and its scan's, on the thread pool, in no turn of the loop", async () => {
    await developerTab();
    const watching = new ProcessWatch(service, facts, { intervalMs: 1 });
    // The first watcher's look reads them in its turn (what the panel is sent next is current): before the meter.
    const stop = watching.watch();
    const from = { ...watching.stats };
    const meter = turnMeter(tcpTableReadsOnThread);
    // A scan in slices at the next look, whatever the tables say.
    watching.rescan();
    try {
      // Every TABLES_EVERY_LOOKS-th look reads the tables whatever the count of TCP sockets says.
      await until(() => watching.stats.looks > from.looks + TABLES_EVERY_LOOKS, 'a timer look that reads the tables');
    } finally {
      stop();
      watching.dispose();
    }
    expect(meter.stop().mostPerTurn).toBe(0);
    expect(watching.stats.scans).toBeGreaterThan(from.scans);
  });

  it("does not take a reused pid's POSIX session for what an ended session left", async () => {
    // A session leader (detached: setsid) standing in for a process that got an ended session's pid.
    const leader = spawn('sleep', ['982'], { detached: true, stdio: 'ignore' });
    try {
      await new Promise<void>((resolve, reject) => leader.once('spawn', resolve).once('error', reject));
      const ended = { id: 'ended-long-ago', pid: leader.pid!, running: false };
      expect(snapshotSessions(service.labels, [ended])!.get(ended.id)!.processes).toEqual([]);
    } finally {
      leader.kill('SIGKILL');
    }
  });
});

function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
