import { describe, expect, it } from 'vitest';
import { carrying, running } from '../testing/carrying.js';
import type { TerminalOwner } from './terminal-tool.js';
import { useRealShells } from '../testing/real-shells.js';
import { until } from '../testing/poll-until.js';

/**
 * An agent's session ended any way but terminal_close (the developer closing
 * its tab in the panel, its owner gone past the orphan limit, its owner's
 * sessions closed) ends what it left running too, detached jobs included, as
 * terminal_close does. Real shells; Linux only, like the tracking.
 */

const owner: TerminalOwner = { id: 'conn-session-endings' };
// No orphan keeps running: a departed owner's sessions are closed at once.
const shells = useRealShells('session-endings', owner, { maxOrphanedLive: 0 });

/** A shell of `who` with a nohup job and a setsid job; returns the session and the jobs' pids. */
async function shellWithDetachedJobs(who: TerminalOwner): Promise<{ id: string; jobs: number[] }> {
  const run = await shells.tool.run(who, {
    // In a subshell the job leads no process group, so setsid makes its session without forking: $! is the sleep.
    command: 'nohup sleep 989 >/dev/null 2>&1 & echo "job=$!"; ( setsid sleep 988 >/dev/null 2>&1 & echo "job=$!" )',
  });
  expect(run).toMatchObject({ outcome: 'completed', exit_code: 0 });
  const jobs = [...run.output.matchAll(/job=(\d+)/g)].map((match) => Number(match[1]));
  expect(jobs).toHaveLength(2);
  // A job may still be inside its exec (setsid -> sleep), when the kernel shows no environment for it: wait for both.
  await until(() => jobs.every((job) => carrying(run.id).includes(job)), 'both jobs carry the session id');
  return { id: run.id, jobs };
}

function removed(id: string): Promise<void> {
  return new Promise((resolve) => {
    const unsubscribe = shells.service.on('pty.removed', (event) => {
      if (event.id !== id) return;
      unsubscribe();
      resolve();
    });
  });
}

describe.runIf(process.platform === 'linux')("ending an agent's session", () => {
  it("the developer closing its tab (the panel's kill) ends its nohup and setsid jobs", async () => {
    const { id, jobs } = await shellWithDetachedJobs(owner);
    await shells.service.kill(id);
    expect(jobs.filter(running)).toEqual([]);
    expect(carrying(id)).toEqual([]);
  });

  it("closing a departed owner's orphans ends their detached jobs", async () => {
    const departing: TerminalOwner = { id: 'conn-session-endings-departing' };
    const { id, jobs } = await shellWithDetachedJobs(departing);
    const gone = removed(id);
    shells.tool.ownerDisconnected(departing.id);
    await gone;
    expect(jobs.filter(running)).toEqual([]);
    expect(carrying(id)).toEqual([]);
  });

  it("closing an owner's sessions ends their detached jobs", async () => {
    const leaving: TerminalOwner = { id: 'conn-session-endings-leaving' };
    const { id, jobs } = await shellWithDetachedJobs(leaving);
    await shells.tool.closeOwner(leaving.id);
    expect(jobs.filter(running)).toEqual([]);
    expect(carrying(id)).toEqual([]);
  });
});
