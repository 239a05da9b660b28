import { closeSync, openSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createPtyService } from './pty-service.js';
import { isolatedEnv } from '../testing/isolated-env.js';
import { readAll, waitForExit, waitForOutput } from '../testing/session-waits.js';
import type { PtyService } from './types.js';

/** Alive means it exists and is not a zombie waiting for its (new) parent to reap it. */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Pids printed by a script as "pid=<n>". */
function printedPids(text: string): number[] {
  return [...text.matchAll(/pid=(\d+)/g)].map((match) => Number(match[1]));
}

let service: PtyService;
let server: Server;

beforeEach(async () => {
  // Long enough that SIGHUP wins on a loaded machine; what ignores it still gets SIGKILL.
  service = createPtyService({ killGraceMs: 1500, env: isolatedEnv() });
  // A socket of the core's own that no child may inherit.
  server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterEach(async () => {
  await service.dispose();
  await new Promise((resolve) => server.close(resolve));
});

describe('process lifecycle', () => {
  it("gives a session no other session's master fd and none of the core's descriptors", async () => {
    // Put a gap in the fd table below the first session's master: node-pty's
    // own cleanup in the child stops at the first gap above fd 15.
    const spacers = Array.from({ length: 24 }, () => openSync('/dev/null', 'r'));
    const first = service.create({ command: 'bash', args: ['--norc', '--noprofile'], source: 'user', env: { PS1: '$ ' } });
    for (const fd of spacers) closeSync(fd);
    // The test is only meaningful if the core holds an inheritable PTY master
    // above a gap, and a socket, at the moment the second session forks: so
    // check and spawn in the same tick, before anything can fill the gap.
    const core = listFds();
    const master = core.find((entry) => entry.target === '/dev/ptmx' && entry.inheritable && entry.fd > 15);
    expect(master).toBeDefined();
    const open = new Set(core.map((entry) => entry.fd));
    const gapBelowMaster = Array.from({ length: master!.fd - 16 }, (_, i) => i + 16).some((fd) => !open.has(fd));
    expect(gapBelowMaster).toBe(true);
    expect(core.some((entry) => entry.target.startsWith('socket:'))).toBe(true);
    const second = service.create({ command: 'bash', args: ['-c', 'tty; ls -l /proc/self/fd'], source: 'agent' });

    await waitForOutput(service, first.id, '$ ');
    await waitForExit(service, second.id);
    const text = readAll(service, second.id).toString();
    const ownTty = text.split('\r\n')[0]!;
    expect(ownTty).toMatch(/^\/dev\/pts\/\d+$/);
    const targets = [...text.matchAll(/ (\d+) -> (\S+)/g)].map((match) => ({ fd: Number(match[1]), target: match[2]! }));
    expect(targets.map((entry) => entry.fd).slice(0, 3)).toEqual([0, 1, 2]);
    for (const { fd, target } of targets) {
      // ls's own handle on the directory it lists is the one other entry allowed.
      const allowed = target === ownTty || /^\/proc\/\d+\/fd$/.test(target);
      expect(allowed, `fd ${fd} -> ${target}`).toBe(true);
    }
  });

  it('kill ends the whole process group: SIGHUP, and SIGKILL for what ignores it', async () => {
    const background = service.create({ command: 'bash', args: ['-c', 'sleep 1000 & echo "pid=$!"; sleep 1000 & echo "pid=$!"; wait'], source: 'agent' });
    const pids = printedPids(await waitForOutput(service, background.id, /pid=\d+\r\npid=\d+\r\n/));
    expect(pids).toHaveLength(2);
    expect(pids.every(isAlive)).toBe(true);
    await service.kill(background.id);
    expect(service.get(background.id)).toMatchObject({ status: 'exited', signal: 'SIGHUP' });
    expect(pids.filter(isAlive)).toEqual([]);

    const trapping = service.create({
      command: 'bash',
      args: ['-c', `(trap '' HUP; echo "pid=$BASHPID"; exec sleep 1000) & wait`],
      source: 'agent',
    });
    const [trapper] = printedPids(await waitForOutput(service, trapping.id, /pid=\d+\r\n/));
    expect(isAlive(trapper!)).toBe(true);
    await service.kill(trapping.id);
    expect(isAlive(trapper!)).toBe(false);
    expect(service.get(trapping.id)!.status).toBe('exited');

    // A session leader that ignores SIGHUP itself is ended by SIGKILL.
    const stubborn = service.create({ command: 'bash', args: ['-c', `trap '' HUP; echo "pid=$$"; while :; do sleep 1; done`], source: 'agent' });
    await waitForOutput(service, stubborn.id, /pid=\d+\r\n/);
    await service.kill(stubborn.id);
    expect(service.get(stubborn.id)).toMatchObject({ status: 'exited', signal: 'SIGKILL' });
    expect(isAlive(stubborn.pid)).toBe(false);
  });

  it('dispose ends every session, including jobs in their own process groups, and resolves after all are gone', async () => {
    const pids: number[] = [];
    const interactive = service.create({ command: 'bash', args: ['--norc', '--noprofile', '-i'], source: 'user', env: { PS1: '$ ' } });
    await waitForOutput(service, interactive.id, '$ ');
    // Job control puts this job in its own process group: a group kill alone would miss it.
    service.write(interactive.id, 'sleep 1000 & echo "pid=$!"\r');
    pids.push(...printedPids(await waitForOutput(service, interactive.id, /pid=\d+\r\n/)));
    const jobGroup = Number(readFileSync(`/proc/${pids[0]}/stat`, 'latin1').split(') ')[1]!.split(' ')[2]);
    expect(jobGroup).not.toBe(interactive.pid);

    const trapping = service.create({ command: 'bash', args: ['-c', `(trap '' HUP; echo "pid=$BASHPID"; exec sleep 1000) & sleep 1000 & echo "pid=$!"; wait`], source: 'agent' });
    pids.push(...printedPids(await waitForOutput(service, trapping.id, /(pid=\d+\r\n.*){2}/s)));
    const plain = service.create({ command: 'sleep', args: ['1000'], source: 'agent' });
    pids.push(interactive.pid, trapping.pid, plain.pid);

    // A session that exited but left a job holding its terminal.
    // SIGHUP is ignored before the fork, so the job survives the hangup when bash exits.
    const lingering = service.create({ command: 'bash', args: ['-c', `trap '' HUP; sleep 1000 & echo "pid=$!"`], source: 'agent' });
    await waitForExit(service, lingering.id);
    pids.push(...printedPids(readAll(service, lingering.id).toString()));
    expect(service.get(lingering.id)!.status).toBe('exited');

    expect(pids).toHaveLength(7);
    expect(pids.filter(isAlive)).toEqual(pids);
    await service.dispose();
    expect(pids.filter(isAlive)).toEqual([]);
    expect(service.list().every((info) => info.status === 'exited')).toBe(true);
  });

  it('kill with a signal the process survives resolves after the grace period without escalating', async () => {
    const info = service.create({ command: 'bash', args: ['-c', `trap 'echo got-int' INT; echo ready; while :; do sleep 0.05; done`], source: 'agent' });
    await waitForOutput(service, info.id, 'ready');
    await service.kill(info.id, 'SIGINT');
    await waitForOutput(service, info.id, 'got-int');
    expect(service.get(info.id)!.status).toBe('running');
    await service.kill(info.id);
    expect(service.get(info.id)).toMatchObject({ status: 'exited', signal: 'SIGHUP' });
    // Killing an exited session is a no-op, not an error.
    await service.kill(info.id);
  });

  it('remove kills a running session first, then forgets it', async () => {
    const info = service.create({ command: 'sleep', args: ['1000'], source: 'agent' });
    const events: string[] = [];
    service.on('pty.exited', (event) => events.push(`exited:${event.id}`));
    service.on('pty.removed', (event) => events.push(`removed:${event.id}`));
    await service.remove(info.id);
    expect(events).toEqual([`exited:${info.id}`, `removed:${info.id}`]);
    expect(service.get(info.id)).toBeUndefined();
    expect(isAlive(info.pid)).toBe(false);
  });
});

/** The test process's own descriptors, with whether each would survive exec. */
function listFds(): { fd: number; target: string; inheritable: boolean }[] {
  const entries = [];
  for (const name of readdirSync('/proc/self/fd')) {
    try {
      const flags = Number.parseInt(/flags:\s+(\d+)/.exec(readFileSync(`/proc/self/fdinfo/${name}`, 'latin1'))![1]!, 8);
      entries.push({ fd: Number(name), target: readlinkSync(`/proc/self/fd/${name}`), inheritable: (flags & 0o2000000) === 0 });
    } catch {
      // closed while listing
    }
  }
  return entries;
}
